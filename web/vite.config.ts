/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import firstScreen from './src/first-screen.json' with { type: 'json' };

// The API the dev server proxies to (`npm run dev` next to `make run`).
const api = process.env.BARRAGE_API ?? 'http://127.0.0.1:8080';

/**
 * firstScreens writes dist/first-screen.json for barrage-api, which announces
 * in a page's index.html what its first screen needs
 * (services/api/internal/httpapi/first_screen.go). For each page of
 * src/first-screen.json: its path pattern; its API reads, the shell's
 * included; its route's chunk with every chunk that one imports, less those
 * the main bundle loads already; and the stylesheets of those chunks.
 */
function firstScreens(): Plugin {
  return {
    name: 'barrage-first-screens',
    apply: 'build',
    generateBundle(_, bundle) {
      type Chunk = { imports: string[]; isEntry: boolean; facadeModuleId: string | null; viteMetadata?: { importedCss: Set<string> } };
      const chunks = new Map<string, Chunk>();
      for (const [file, out] of Object.entries(bundle)) if (out.type === 'chunk') chunks.set(file, out);
      const closure = (file: string, into = new Set<string>()) => {
        if (!into.has(file)) {
          into.add(file);
          for (const dep of chunks.get(file)?.imports ?? []) closure(dep, into);
        }
        return into;
      };
      const loaded = new Set<string>();
      for (const [file, chunk] of chunks) if (chunk.isEntry) closure(file, loaded);
      const pages = firstScreen.pages.map((page) => {
        const id = fileURLToPath(new URL(`./src/app/${page.route.slice(2)}.tsx`, import.meta.url));
        const route = [...chunks].find(([, c]) => c.facadeModuleId === id)?.[0];
        if (!route) this.error(`src/first-screen.json: ${page.route} is no route chunk of the build`);
        const reads = [...(page.shell === false ? [] : firstScreen.shellReads), ...page.reads];
        const needed = [...closure(route)].filter((f) => !loaded.has(f));
        const modules = needed.map((f) => `/${f}`);
        const styles = [...new Set(needed.flatMap((f) => [...(chunks.get(f)?.viteMetadata?.importedCss ?? [])]))].map((f) => `/${f}`);
        return { path: page.path, reads, modules, styles };
      });
      const source = JSON.stringify({ shellReads: firstScreen.shellReads, pages });
      this.emitFile({ type: 'asset', fileName: 'first-screen.json', source });
    },
  };
}

export default defineConfig({
  plugins: [react(), firstScreens()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { proxy: { '/api': { target: api, changeOrigin: false } } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  // Tests of plain modules (*.test.ts) run in Node; tests that render or
  // touch the DOM are *.test.tsx and get jsdom, whose set-up per file is most
  // of a jsdom test's time.
  test: {
    globals: true,
    setupFiles: ['./src/testing/setup.ts'],
    projects: [
      { extends: true, test: { name: 'node', environment: 'node', include: ['src/**/*.test.ts'] } },
      { extends: true, test: { name: 'dom', environment: 'jsdom', include: ['src/**/*.test.tsx'] } },
    ],
  },
});

/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API the dev server proxies to (`npm run dev` next to `make run`).
const api = process.env.BARRAGE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
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

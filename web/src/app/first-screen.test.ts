import { readFileSync } from 'node:fs';
import firstScreen from '@/first-screen.json';

// src/first-screen.json names each page's route module and path as
// app/router.tsx does; the build and barrage-api's index.html go by it.
describe('first-screen.json', () => {
  const router = readFileSync(new URL('./router.tsx', import.meta.url), 'utf8');
  const routes = [...router.matchAll(/path: '([^']+)',\s*lazy: \(\) => import\('(\.\/routes\/[^']+)'\)/g)].map(([, path, route]) => ({
    path: path!.startsWith('/') ? path! : `/${path!}`,
    route: route!,
  }));

  it('lists every lazily loaded page of the router but the catch-all, with its path', () => {
    expect(routes.length).toBeGreaterThan(15);
    const listed = firstScreen.pages.map((p) => ({ path: p.path, route: p.route }));
    expect(listed).toEqual(expect.arrayContaining(routes.filter((r) => r.path !== '/*')));
    expect(listed).toHaveLength(routes.length - 1);
  });

  it('names only path parameters the page path has', () => {
    for (const page of firstScreen.pages) {
      for (const read of page.reads) for (const name of read.match(/:[A-Za-z]+/g) ?? []) expect(page.path.split('/')).toContain(name);
    }
  });
});

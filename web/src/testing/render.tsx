import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { setProject } from '@/lib/project';

/**
 * renderRoutes renders routes at url, with project chosen, inside a fresh
 * query cache that does not retry; it returns the router so a test can read
 * where the page went.
 */
export function renderRoutes(routes: RouteObject[], url: string, project = 'default') {
  setProject(project);
  const router = createMemoryRouter(routes, { initialEntries: [url] });
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={qc}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

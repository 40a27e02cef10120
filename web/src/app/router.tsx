import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, type ShouldRevalidateFunction } from 'react-router';
import { Loading } from '@/components/ui/states';
import { authMethodsQuery } from '@/features/auth/api/get-auth-methods';
import { meQuery } from '@/features/auth/api/get-me';
import { prefetchRunPage } from '@/features/runs/api/prefetch-run';
import { Layout } from './layout';
import { RouteError } from './route-error';

/** onNewParams runs a prefetching loader again only for another id, not for a toggle in the search. */
const onNewParams: ShouldRevalidateFunction = ({ currentParams, nextParams }) =>
  Object.keys(nextParams).some((k) => currentParams[k] !== nextParams[k]);

/**
 * createRouter makes the dashboard's routes. Every page but the shell is its
 * own chunk, loaded on first visit. Loaders do not wait for data: they start
 * reads into qc as navigation begins, beside the chunk's download, and the
 * pages' queries pick them up (the shell's sign-in check; the run page's
 * reads, which an hour-long run makes large).
 */
export function createRouter(qc: QueryClient) {
  return createBrowserRouter([
    { path: '/sign-in', lazy: () => import('./routes/sign-in'), errorElement: <RouteError />, hydrateFallbackElement: <Loading /> },
    {
      path: '/',
      element: <Layout />,
      errorElement: <RouteError />,
      hydrateFallbackElement: <Loading />,
      loader: () => {
        void qc.prefetchQuery(meQuery);
        void qc.prefetchQuery(authMethodsQuery);
        return null;
      },
      shouldRevalidate: () => false,
      children: [
        { index: true, element: <Navigate to="/runs" replace /> },
        { path: 'runs', lazy: () => import('./routes/runs') },
        { path: 'runs/new', lazy: () => import('./routes/new-run') },
        {
          path: 'runs/:runId',
          lazy: () => import('./routes/run'),
          loader: ({ params, request }) => {
            prefetchRunPage(qc, params.runId ?? '', new URL(request.url).searchParams);
            return null;
          },
          shouldRevalidate: onNewParams,
        },
        { path: 'compare', lazy: () => import('./routes/compare') },
        { path: 'searches', lazy: () => import('./routes/searches') },
        { path: 'searches/:searchId', lazy: () => import('./routes/search') },
        { path: 'tests', lazy: () => import('./routes/tests') },
        { path: 'tests/:testId', lazy: () => import('./routes/test') },
        { path: 'sync', lazy: () => import('./routes/sync') },
        { path: 'sync/:sourceId', lazy: () => import('./routes/sync-source') },
        { path: 'agents', lazy: () => import('./routes/agents') },
        { path: 'echo-profiles', lazy: () => import('./routes/echo-profiles') },
        { path: 'members', lazy: () => import('./routes/members') },
        { path: 'settings', lazy: () => import('./routes/settings') },
        { path: 'tokens', lazy: () => import('./routes/tokens') },
        { path: 'audit', lazy: () => import('./routes/audit') },
        { path: 'users', lazy: () => import('./routes/users') },
        { path: '*', lazy: () => import('./routes/not-found') },
      ],
    },
  ]);
}

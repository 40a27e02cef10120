import { createBrowserRouter, Navigate } from 'react-router';
import { Loading } from '@/components/ui/states';
import { Layout } from './layout';
import { RouteError } from './route-error';

// Every page but the shell is its own chunk, loaded on first visit.
export const router = createBrowserRouter([
  { path: '/sign-in', lazy: () => import('./routes/sign-in'), errorElement: <RouteError />, hydrateFallbackElement: <Loading /> },
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    hydrateFallbackElement: <Loading />,
    children: [
      { index: true, element: <Navigate to="/runs" replace /> },
      { path: 'runs', lazy: () => import('./routes/runs') },
      { path: 'runs/new', lazy: () => import('./routes/new-run') },
      { path: 'runs/:runId', lazy: () => import('./routes/run') },
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

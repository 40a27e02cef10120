import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { newQueryClient } from '@/lib/query-client';
import { createRouter } from './router';

// One client and one router for the page's life, made as the bundle loads so
// that the first route's loaders start its reads before React renders.
const queryClient = newQueryClient();
const router = createRouter(queryClient);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}

import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // A 4xx will not heal by asking again.
        retry: (n, err) => !(err instanceof ApiError && err.status < 500) && n < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}

// The app's one client of the service, and tRPC's React Query bindings typed by its router.
import { type AppRouter, createDiceClient, isDiceError } from '@fairdice/client';
import { QueryClient } from '@tanstack/react-query';
import { createTRPCContext } from '@trpc/tanstack-react-query';

/**
 * Where the service is: `?api=http://host:port` on the page's URL, else VITE_FAIRDICE_URL at
 * build time, else '/' (the page's own origin, as behind a reverse proxy or `npm run dev`).
 */
export const apiBase =
  new URLSearchParams(window.location.search).get('api') ?? import.meta.env.VITE_FAIRDICE_URL ?? '/';

export const dice = createDiceClient(apiBase);

export const queryClient = new QueryClient({
  defaultOptions: {
    // An answer of the service (a 400, a 429) is final; only network failures are retried.
    queries: { retry: (failures, error) => !isDiceError(error) && failures < 2 },
    mutations: { retry: false },
  },
});

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

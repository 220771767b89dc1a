// The typed client (`fairdice/client`): a tRPC client for the service's /trpc endpoint, typed by
// AppRouter. Only the router's type is imported, so this module pulls in no server code.
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from './api/router.js';
import type { ApiErrorData } from './api/trpc.js';

export type { AppRouter } from './api/router.js';
export type { ApiErrorData } from './api/trpc.js';
export type { ApiErrorCode } from './errors.js';
export type { AdvantageState, DieGroup, RollRequest, RollResponse } from './roll/types.js';

export type DiceClient = ReturnType<typeof createTRPCClient<AppRouter>>;

/**
 * A client for the fairdice service at `baseUrl` (e.g. `http://127.0.0.1:3000`):
 * `client.roll.query({ formula })`, `client.rollWith.mutate(request)`,
 * `client.batch.mutate({ rolls })`, `client.health.query()`. A failed call rejects with a
 * TRPCClientError whose `data.api.code` is the same code the REST API answers with.
 */
export function createDiceClient(baseUrl: string | URL): DiceClient {
  const url = new URL('trpc', String(baseUrl).endsWith('/') ? String(baseUrl) : `${String(baseUrl)}/`);
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: url.href })] });
}

/** The service error a failed call carries (`code`, `message`), or undefined without one (network). */
export function errorOf(error: unknown): ApiErrorData | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data: unknown = error.data;
  if (data === null || typeof data !== 'object' || !('api' in data)) return undefined;
  return (data as { api: ApiErrorData }).api;
}

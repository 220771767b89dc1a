// @fairdice/client: the typed client of the fairdice service, for browsers and Node. It talks to
// the service's /trpc endpoint with @trpc/client (a peer dependency) and imports no server code,
// at run time or in its types. Its answer types are inferred from the zod schemas of
// @fairdice/client/schemas, imported as types only: this entry loads no zod. See docs/client.md.
// tRPC's typings name `Disposable` and `AsyncDisposable` (ES2026's explicit resource management):
// this puts that one standard lib, not Node's types, into a consumer's program.
/// <reference lib="esnext.disposable" preserve="true" />
import {
  createTRPCClient,
  type HTTPHeaders,
  type HTTPLinkOptions,
  httpLink,
  type TRPCClient,
  type TRPCProcedureOptions,
} from '@trpc/client';
import type {
  TRPC_ERROR_CODE_KEY,
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from '@trpc/server';
import {
  API_ERROR_CODES,
  type ApiErrorData,
  type BatchRollRequest,
  type BatchRollResponse,
  type HealthResponse,
  type Jwks,
  type Receipt,
  type RollQuery,
  type RollRequest,
  type RollResponse,
  type StatsBatchRequest,
  type StatsBatchResponse,
  type StatsQuery,
  type StatsRequest,
  type StatsResponse,
  type StoredRollQuery,
  type TableCreated,
  type TableReport,
  type TableReportQuery,
  type TableRolls,
  type TableRollsQuery,
  type VerifyRequest,
  type VerifyResponse,
} from './types.js';

export * from './describe.js';
export * from './types.js';
export {
  type ChainResult,
  commitmentOf,
  compareHeads,
  entryMatchesHead,
  type HeadComparison,
  type VerifyResult,
  verifyChain,
  verifyEntry,
  verifyHead,
  verifyReceipt,
  verifyReveal,
} from './verify.js';

/** The `data` of every error the service answers over tRPC. */
export interface DiceErrorData {
  /** tRPC's name for the status (`BAD_REQUEST`, `TOO_MANY_REQUESTS`, ...). */
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  /** The procedure called (`roll`), when the service knows it. */
  path: string | undefined;
  /** The API error: the same `code` and `message` the REST routes answer with. */
  api: ApiErrorData;
}

/** The error shape of the service's tRPC endpoint. */
export interface DiceErrorShape {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: DiceErrorData;
}

/** The root types of the service's router, as a client needs them (no server context or meta). */
export interface DiceRootTypes {
  ctx: object;
  meta: object;
  errorShape: DiceErrorShape;
  transformer: false;
}

/**
 * The service's procedures as a client sees them: the type `createTRPCClient` and tRPC's React
 * Query integration take. Written out here so a front end's type-check needs no server package.
 */
export type AppRouter = TRPCBuiltRouter<
  DiceRootTypes,
  {
    /** GET /v1/roll: roll a formula, with an optional advantage state. */
    roll: TRPCQueryProcedure<{ input: RollQuery; output: RollResponse; meta: object }>;
    /** POST /v1/roll: roll a formula with bonuses and tags. */
    rollWith: TRPCMutationProcedure<{ input: RollRequest; output: RollResponse; meta: object }>;
    /** POST /v1/roll/batch: several rolls counted against one dice budget. */
    batch: TRPCMutationProcedure<{ input: BatchRollRequest; output: BatchRollResponse; meta: object }>;
    /** POST /v1/tables: create a table (a shared dice tray). */
    // biome-ignore lint/suspicious/noConfusingVoidType: tRPC's own type for "no input" (`createTable.mutate()`)
    createTable: TRPCMutationProcedure<{ input: void; output: TableCreated; meta: object }>;
    /** GET /v1/tables/{id}/rolls: a page of a table's log. */
    tableRolls: TRPCQueryProcedure<{ input: TableRollsQuery; output: TableRolls; meta: object }>;
    /** GET /v1/tables/{id}/report: how lucky the rolls of a table were. */
    tableReport: TRPCQueryProcedure<{ input: TableReportQuery; output: TableReport; meta: object }>;
    /** GET /v1/rolls/{rollId}: a stored receipt. */
    storedRoll: TRPCQueryProcedure<{ input: StoredRollQuery; output: Receipt; meta: object }>;
    /** POST /v1/receipts/verify: the service checks a receipt against its keys. */
    verifyReceipt: TRPCMutationProcedure<{ input: VerifyRequest; output: VerifyResponse; meta: object }>;
    /** GET /.well-known/jwks.json: the public keys that verify receipts. */
    // biome-ignore lint/suspicious/noConfusingVoidType: tRPC's own type for "no input" (`jwks.query()`)
    jwks: TRPCQueryProcedure<{ input: void; output: Jwks; meta: object }>;
    /** GET /v1/health: liveness. */
    // biome-ignore lint/suspicious/noConfusingVoidType: tRPC's own type for "no input" (`health.query()`)
    health: TRPCQueryProcedure<{ input: void; output: HealthResponse; meta: object }>;
    /** GET /v1/stats: the exact distribution of a formula's total. */
    stats: TRPCQueryProcedure<{ input: StatsQuery; output: StatsResponse; meta: object }>;
    /** POST /v1/stats: the same, with bonuses and tags. */
    statsWith: TRPCMutationProcedure<{ input: StatsRequest; output: StatsResponse; meta: object }>;
    /** POST /v1/stats/batch: up to 5 stats requests side by side, under one budget. */
    statsBatch: TRPCMutationProcedure<{ input: StatsBatchRequest; output: StatsBatchResponse; meta: object }>;
  }
>;

/**
 * Each procedure's call with its response by name (`Promise<RollResponse>`); tRPC's own client
 * type would show the JSON form of each response as an unnamed object type.
 */
export interface DiceProcedures {
  roll: { query(input: RollQuery, options?: TRPCProcedureOptions): Promise<RollResponse> };
  rollWith: { mutate(input: RollRequest, options?: TRPCProcedureOptions): Promise<RollResponse> };
  batch: { mutate(input: BatchRollRequest, options?: TRPCProcedureOptions): Promise<BatchRollResponse> };
  createTable: { mutate(input?: undefined, options?: TRPCProcedureOptions): Promise<TableCreated> };
  tableRolls: { query(input: TableRollsQuery, options?: TRPCProcedureOptions): Promise<TableRolls> };
  tableReport: { query(input: TableReportQuery, options?: TRPCProcedureOptions): Promise<TableReport> };
  storedRoll: { query(input: StoredRollQuery, options?: TRPCProcedureOptions): Promise<Receipt> };
  verifyReceipt: { mutate(input: VerifyRequest, options?: TRPCProcedureOptions): Promise<VerifyResponse> };
  jwks: { query(input?: undefined, options?: TRPCProcedureOptions): Promise<Jwks> };
  health: { query(input?: undefined, options?: TRPCProcedureOptions): Promise<HealthResponse> };
  stats: { query(input: StatsQuery, options?: TRPCProcedureOptions): Promise<StatsResponse> };
  statsWith: { mutate(input: StatsRequest, options?: TRPCProcedureOptions): Promise<StatsResponse> };
  statsBatch: {
    mutate(input: StatsBatchRequest, options?: TRPCProcedureOptions): Promise<StatsBatchResponse>;
  };
}

/**
 * A client of the service: `dice.roll.query({ formula })`, `dice.rollWith.mutate(request)`, ...
 * Also a `TRPCClient<AppRouter>`, so tRPC's React Query integration takes it as it is.
 */
export type DiceClient = DiceProcedures & TRPCClient<AppRouter>;

/** What `fetch` the client calls: the global one by default. */
export type DiceFetch = NonNullable<HTTPLinkOptions<DiceRootTypes>['fetch']>;

export interface DiceClientOptions {
  /**
   * Where the service is: an absolute URL (`https://dice.example.com`, `http://127.0.0.1:3000`)
   * or a path on the page's own origin (`/`, `/api`), for a same-origin deploy or a dev proxy.
   * The client calls `<url>/trpc`.
   */
  url: string | URL;
  /** Headers sent with every call: an object, or a function called per call (may be async). */
  headers?: HTTPHeaders | (() => HTTPHeaders | Promise<HTTPHeaders>);
  /** The `fetch` to call instead of the global one (a test double, a wrapper that logs, undici). */
  fetch?: DiceFetch;
}

/** `<base>/trpc`, keeping a relative base relative: `/` → `/trpc`, `/api/` → `/api/trpc`. */
export function trpcEndpointOf(base: string | URL): string {
  const text = base instanceof URL ? base.href : base;
  return `${text.replace(/\/+$/, '')}/trpc`;
}

/**
 * A client for the fairdice service at `url`, or with `options` (url, headers, fetch).
 * A failed call rejects with an error `isDiceError` recognises, whose `data.api.code` is the code
 * the REST API answers with.
 */
export function createDiceClient(url: string | URL): DiceClient;
export function createDiceClient(options: DiceClientOptions): DiceClient;
export function createDiceClient(target: string | URL | DiceClientOptions): DiceClient {
  const options: DiceClientOptions =
    typeof target === 'string' || target instanceof URL ? { url: target } : target;
  const { headers } = options;
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: trpcEndpointOf(options.url),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(headers === undefined
          ? {}
          : { headers: typeof headers === 'function' ? () => headers() : headers }),
      }),
    ],
  });
}

/**
 * A failed call of the service: a TRPCClientError (of whichever copy of @trpc/client threw it)
 * carrying the API error in `data.api`.
 */
export interface DiceError extends Error {
  readonly name: 'TRPCClientError';
  readonly data: DiceErrorData;
  readonly shape: DiceErrorShape | undefined;
  /** What the link recorded: `response` is the fetch Response (its headers: retry-after, x-ratelimit-*). */
  readonly meta?: Record<string, unknown>;
}

const KNOWN_CODES: ReadonlySet<string> = new Set(API_ERROR_CODES);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object';

/**
 * Whether `error` is a failed call that the service answered with an API error. It checks the
 * error's shape, not `instanceof`, so it holds whichever copy of @trpc/client made the error
 * (React Query integrations may bring their own). A network failure is not a DiceError.
 */
export function isDiceError(error: unknown): error is DiceError {
  if (!(error instanceof Error) || error.name !== 'TRPCClientError') return false;
  const data = (error as { data?: unknown }).data;
  if (!isRecord(data) || !isRecord(data.api)) return false;
  const { code, message } = data.api;
  return typeof code === 'string' && KNOWN_CODES.has(code) && typeof message === 'string';
}

/** The API error of a failed call, or undefined for a failure without one (a network error). */
export function errorOf(error: unknown): ApiErrorData | undefined {
  return isDiceError(error) ? error.data.api : undefined;
}

// What the benchmark sends and rolls: the HTTP scenarios, the engine formulas and the server kinds.
// One list, read by the bench, the server child and the unit test, so they cannot drift apart.

/**
 * The builds of fairdice under load, each started as a user starts it (`node dist/server.js`,
 * ./service.ts): this checkout's, this checkout's with its metrics on (METRICS_PORT, so every
 * request is counted: docs/operations.md#metrics-and-readiness), and with `--baseline DIR` DIR's.
 */
export const SERVICE_KINDS = ['fairdice', 'fairdiceMetrics', 'baseline'] as const;
/**
 * The reference servers, each in a child of ./server-child.ts: a bare fastify route, the bare
 * route answering what fairdice answers (see bareFastifySameAnswer below), trpc-to-openapi's adapter.
 */
export const CHILD_KINDS = ['bareFastify', 'bareFastifySameAnswer', 'trpcToOpenapi'] as const;
/** The processes under load. */
export const SERVER_KINDS = [...SERVICE_KINDS, ...CHILD_KINDS] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];
export type ChildKind = (typeof CHILD_KINDS)[number];

export interface HttpScenario {
  /** Key in the JSON report. */
  readonly name: string;
  /** What a reader sees in the table. */
  readonly label: string;
  readonly server: ServerKind;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
}

const batchOf20 = {
  rolls: Array.from({ length: 20 }, (_, i) => ({ formula: ['1d20+5', '2d6', '1d8+3', '4d6kh3'][i % 4]! })),
};

/** Every scenario runs once per round, in an order rotated each round. */
export const HTTP_SCENARIOS: readonly HttpScenario[] = [
  {
    name: 'bareFastify',
    label: 'bare fastify GET /v1/roll (static JSON)',
    server: 'bareFastify',
    method: 'GET',
    path: '/v1/roll?formula=1d20',
  },
  {
    // A reference, read by no target: a bare fastify route whose answer is fairdice's for this
    // request (a 1d20 roll's JSON, the CORS, nosniff and rate-limit headers) on a server with
    // fairdice's timeouts. What fairdice spends beyond it is its own work: routing hooks, rate
    // counting, validation and the roll; what it shares with it is the cost of the answer.
    name: 'bareSameAnswer',
    label: "bare fastify GET /v1/roll (fairdice's answer)",
    server: 'bareFastifySameAnswer',
    method: 'GET',
    path: '/v1/roll?formula=1d20',
  },
  {
    name: 'rollGet',
    label: 'fairdice GET /v1/roll?formula=1d20',
    server: 'fairdice',
    method: 'GET',
    path: '/v1/roll?formula=1d20',
  },
  {
    // The same request with the metrics on, side by side with rollGet in every round: what
    // counting costs (target: within 5 % of rollGet's requests per second).
    name: 'rollGetMetrics',
    label: 'fairdice GET /v1/roll?formula=1d20, metrics on',
    server: 'fairdiceMetrics',
    method: 'GET',
    path: '/v1/roll?formula=1d20',
  },
  {
    name: 'trpcToOpenapiGet',
    label: 'trpc-to-openapi adapter GET /v1/roll?formula=1d20',
    server: 'trpcToOpenapi',
    method: 'GET',
    path: '/v1/roll?formula=1d20',
  },
  {
    name: 'rollPost',
    label: 'fairdice POST /v1/roll 4d6kh3+2 fire, bonuses, tags',
    server: 'fairdice',
    method: 'POST',
    path: '/v1/roll',
    body: { formula: '4d6kh3+2 fire', bonuses: [2, '1d4'], tags: ['fire', 'cold'] },
  },
  {
    name: 'rollBatch',
    label: 'fairdice POST /v1/roll/batch (20 small rolls)',
    server: 'fairdice',
    method: 'POST',
    path: '/v1/roll/batch',
    body: batchOf20,
  },
  {
    name: 'rollGet1000d6',
    label: 'fairdice GET /v1/roll?formula=1000d6',
    server: 'fairdice',
    method: 'GET',
    path: '/v1/roll?formula=1000d6',
  },
];

/**
 * With `--baseline DIR`: GET /v1/roll?formula=1d20 served by DIR's build, one more scenario in
 * every round, so a before/after claim about the rollGet scenario is measured in one run.
 */
export const BASELINE_SCENARIO: HttpScenario = {
  name: 'rollGetBaseline',
  label: 'baseline build GET /v1/roll?formula=1d20',
  server: 'baseline',
  method: 'GET',
  path: '/v1/roll?formula=1d20',
};

/** The static body of the bare fastify route: about the size of a small roll's reply. */
export const BARE_REPLY = { formula: '1d20', total: 11, advantageState: 'normal' } as const;

/**
 * Formulas for the in-process engine comparison; `name` goes into the ratio's key. `peer` is the
 * same roll in rpg-dice-roller's notation where it differs (its failure point needs an operator).
 */
export const ENGINE_FORMULAS: ReadonlyArray<{ name: string; formula: string; peer?: string }> = [
  { name: '1d20', formula: '1d20+5' },
  { name: '4d6kh3', formula: '4d6kh3+2' },
  { name: '999d6', formula: '999d6' },
  { name: '10d10p', formula: '10d10!p' },
  // Success pools, Fate dice, compounding, clamps.
  { name: 'pool', formula: '6d10>=8f1', peer: '6d10>=8f=1' },
  { name: 'fate', formula: '4dF' },
  { name: 'compound', formula: '3d6!!' },
  { name: 'clamp', formula: '2d6min3' },
  // Arithmetic and groups.
  { name: 'crit', formula: '(1d8+4)*2' },
  { name: 'trait', formula: '{1d8!,1d6!}kh1' },
  // Several keeps, dice as a divisor, matching sets.
  { name: 'keepdrop', formula: '4d10dh1dl2' },
  { name: 'dicediv', formula: '2d10/d20', peer: '2d10/1d20' },
  // rpg-dice-roller has no matching sets: its side throws the same dice.
  { name: 'matchsets', formula: '20d6mt', peer: '20d6' },
];

/** The die the random sources race on. */
export const SAMPLER_SIDES = 20;

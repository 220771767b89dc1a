// Every limit of the service in one place: validation, the roller, the OpenAPI document and the
// README all read these numbers, so a limit is changed here and nowhere else.

export const LIMITS = {
  /** Characters in a formula (query, body, batch item). */
  formulaMinLength: 1,
  formulaMaxLength: 200,
  /** Items in RollRequest.bonuses, and characters in a string bonus. */
  bonusesPerRoll: 20,
  bonusMinLength: 1,
  bonusMaxLength: 200,
  /** Items in RollRequest.tags, and characters in each tag. */
  tagsPerRoll: 20,
  tagMinLength: 1,
  tagMaxLength: 32,
  /** Characters in a roll's `by` (who rolls) and `note` (what for): docs/trust.md#who-and-why. */
  byMinLength: 1,
  byMaxLength: 32,
  noteMinLength: 1,
  noteMaxLength: 200,
  /** Characters in an Idempotency-Key, and how long one is kept (docs/api.md#idempotency). */
  idempotencyKeyMinLength: 1,
  idempotencyKeyMaxLength: 255,
  idempotencyKeyTtlMs: 86_400_000,
  /** How long a request waits for another one with its Idempotency-Key to be answered. */
  idempotencyWaitMs: 10_000,
  /** Rolls in one POST /v1/roll/batch. */
  rollsPerBatchMin: 1,
  rollsPerBatch: 20,
  /** Default dice per roll and per batch (both configurable: DICE_PER_ROLL, DICE_PER_BATCH). */
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  /** Default request body size in bytes (BODY_LIMIT_BYTES). */
  bodyBytes: 8192,
  /** Default rate limit: requests per window per address (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS). */
  rateLimitMax: 60,
  rateLimitWindowMs: 60_000,
  /** Default time for a whole request (headers and body) to arrive (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: 10_000,
  /** Default time for the request headers to arrive (HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: 5_000,
  /** Default open connections per client address (CONNECTIONS_PER_ADDRESS). */
  connectionsPerAddress: 32,
  /** IPv6 clients are counted per prefix of this length by default (IPV6_PREFIX_LENGTH). */
  ipv6PrefixLength: 64,
  /** Default wait for Redis before a starting server listens anyway, counting locally (REDIS_STARTUP_WAIT_MS). */
  redisStartupWaitMs: 2_000,
  /**
   * An address refused at twice its rate limit has each new connection held this long before its
   * 429, until its window ends: it gets at most CONNECTIONS_PER_ADDRESS answers per hold.
   */
  blockedHoldMs: 1_000,
  /** Addresses the in-memory rate limit remembers (least recently seen forgotten first). */
  rateLimitAddresses: 100_000,
  /** Requests for the /docs assets per rate-limit window per address: a page load takes 4. */
  docsAssetsPerWindow: 30,
  /** Requests for the pages of the reference (/docs/<name>) per rate-limit window per address. */
  referencePagesPerWindow: 30,
  /** Dice terms: count, sides, multiplier, flat integers. */
  diceCountMax: 1000,
  sidesMax: 2 ** 32,
  multiplierMax: 1000,
  flatMaxAbs: 1_000_000,
  /**
   * Default throws one request may make in total (THROWS_PER_REQUEST): every die thrown, rerolled-away
   * throws and explosion extras included, over all rolls of a batch. Bounds the work and the size
   * of any one answer (up to about 63 bytes per throw: its entry in `results` and in `throws`); a plain roll of the full dice budget throws 1000.
   */
  throwsPerRequest: 5_000,
  /**
   * Default throws budget of one address (docs/operations.md#what-one-address-can-cost): a bucket
   * of THROWS_BURST throws refilled at THROWS_PER_SECOND, the request limit's average allowance
   * of the costliest requests (60 × 5,000 per 60 s), spread out instead of all at once.
   */
  throwsBurst: 10_000,
  throwsPerSecond: 5_000,
  /** Custom dice `d{...}`: faces listed, and each face's absolute value. */
  facesMax: 100,
  faceMaxAbs: 1_000_000,
  /** Arithmetic and groups: terms (dice terms and numbers) per formula or bonus, items per group, bracket depth. */
  termsMax: 100,
  groupItemsMax: 20,
  nestingMax: 16,
  /** A die explodes at most this many times in a chain, and is rerolled at most this many times. */
  explodeCap: 100,
  rerollCap: 100,
  /** `u`: a die is rerolled at most this many times while it repeats an earlier die's value. */
  uniqueCap: 100,
  /** Powers: the largest exponent, and the largest absolute value a power may reach. */
  exponentMax: 20,
  powerMaxAbs: 1e100,
  /** Tables and receipts (docs/trust.md); each configurable by the env variable of the same name. */
  tableRetentionDays: 30,
  tableMaxEntries: 10_000,
  tablesPerHour: 20,
  sseConnectionsPerAddress: 20,
  /** Entries one GET /v1/tables/{id}/rolls answer lists at most. */
  tableRollsPerPage: 100,
  /** Entries a table's luck report reads at most: the last ones (docs/trust.md#how-lucky-the-night-was). */
  tableReportEntries: 1_000,
  /** Characters of a table id: 144 random bits in base64url. */
  tableIdLength: 24,
  /** /v1/stats: outcomes listed at most (beyond: the summary only), and bytes of counts at most. */
  statsOutcomesMax: 25_000,
  statsCountsBytes: 262_144,
  /** /v1/stats: explosion chains are listed until the mass left beyond is below this. */
  statsTailBelow: 1e-30,
  /** /v1/stats: the engine's work budget, in estimated 64-bit word operations, and its time limit. */
  statsCostBudget: 2e9,
  statsTimeoutMs: 5_000,
  /** /v1/stats: how long a computation may wait for a worker (past it: 503 unavailable). */
  statsQueueWaitMs: 5_000,
  /**
   * Default /v1/stats budget of one address (docs/operations.md#what-one-address-can-cost): a
   * bucket of STATS_BURST_MS milliseconds of worker computing time, refilled at
   * STATS_MS_PER_SECOND, charged with each computation's measured time (cached answers are free).
   */
  statsBurstMs: 3_000,
  statsMsPerSecond: 50,
  /** /v1/stats: computations of one address waiting behind the one under way, at most (past it: 429). */
  statsWaitingPerAddress: 4,
  /**
   * Discord's interactions endpoint (docs/discord.md): the largest request body (an interaction
   * from a button carries the message it was on), how old or how far ahead of this clock a
   * request's signed timestamp may be, and how long a command may work before it answers that it
   * ran out of time (Discord drops an answer after 3 s).
   */
  discordBodyBytes: 65_536,
  discordTimestampMaxAgeSeconds: 300,
  discordTimestampSkewSeconds: 60,
  discordAnswerMs: 2_500,
  /** `/table log`: entries shown; `/table verify`: entries checked at most within one answer. */
  discordLogEntries: 10,
  discordVerifyEntries: 1_000,
} as const;

/** A tag: the trailing word a formula may end with. */
export const TAG_PATTERN = /^[a-z]+$/;

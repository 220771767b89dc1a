// The service's configuration, read from the environment and validated once at start-up; a bad
// value stops start-up with one line naming the variable and what it accepts.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { SHUTDOWN_GRACE_MS } from './shutdown.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * TRUST_PROXY as fastify's `trustProxy`: unset/false = the socket address counts; true = trust
 * every proxy; a number = trust that many hops; otherwise a comma list of addresses or CIDRs.
 */
export type TrustProxy = boolean | number | string;

export interface Config {
  port: number;
  host: string;
  rateLimitMax: number;
  rateLimitWindowMs: number;
  redisUrl: string | undefined;
  trustProxy: TrustProxy;
  dicePerRoll: number;
  dicePerBatch: number;
  bodyLimitBytes: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Worker processes sharing the port (node:cluster); more than 1 needs REDIS_URL. */
  workers: number;
  /** How long in-flight requests get to finish on SIGTERM/SIGINT before the process exits anyway. */
  shutdownGraceMs: number;
  /** Throws one request may make, rerolls and explosions included (over it: 400 too_many_dice). */
  throwsPerRequest: number;
  /** The throws budget per address: the bucket's size, and what it regains per second. */
  throwsBurst: number;
  throwsPerSecond: number;
  /** The /v1/stats budget per address: milliseconds of worker time at once, and regained per second. */
  statsBurstMs: number;
  statsMsPerSecond: number;
  /** A request (headers and body) must arrive within this time, else 408-like close (400 invalid_request). */
  requestTimeoutMs: number;
  /** The request headers must arrive within this time. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Open connections one client address (IPv6: one prefix) may hold at once. */
  connectionsPerAddress: number;
  /** Open connections the process holds at once, every address together. */
  maxConnections: number;
  /** IPv6 clients share one rate limit and connection cap per prefix of this length. */
  ipv6PrefixLength: number;
  /** With REDIS_URL: how long a starting server waits for Redis before it listens counting locally. */
  redisStartupWaitMs: number;
  /** Receipts and tables (docs/trust.md): the signing key, retired public keys, where SQLite lives, and the table limits. */
  signingKeyFile: string | undefined;
  signingRetiredKeysFile: string | undefined;
  dataDir: string;
  tableRetentionDays: number;
  tableMaxEntries: number;
  tablesPerHour: number;
  sseConnectionsPerAddress: number;
  /**
   * Every REST answer is checked against its operation's output schema before it is sent (an
   * answer outside it is a 500). On unless NODE_ENV=production: tests and development check every
   * answer; in production the check would cost more than the roll (docs/performance.md#no-output-check-in-production).
   */
  checkOutputs: boolean;
  /**
   * Discord's interactions endpoint (docs/discord.md): the application's public key (64 hex
   * digits) and id. Both set, POST /discord/interactions is served; both unset, it is absent.
   */
  discordPublicKey: string | undefined;
  discordApplicationId: string | undefined;
  /**
   * Discord's API, where the endpoint posts the follow-up message of an interaction (a sealed
   * roll's notice to its channel: docs/discord.md): DISCORD_API_URL, `https://discord.com/api/v10`
   * by default (a test points it at a stand-in).
   */
  discordApiUrl: string;
  /** The address players reach the service at (`https://dice.example.com`), for links in Discord messages. */
  publicUrl: string | undefined;
  /**
   * The operations listener (docs/operations.md#metrics-and-readiness): Prometheus metrics at
   * /metrics and readiness at /ready, on a port of its own, never the public one. Undefined: off.
   */
  metricsPort: number | undefined;
  /** Where the operations listener binds: loopback unless told otherwise. */
  metricsHost: string;
}

/** Default idle keep-alive: short, as nothing but a proxy gains from long-idle connections. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Default idle keep-alive behind a proxy (TRUST_PROXY set): above the 60 s idle of common load balancers, so the service never closes a connection the proxy is about to reuse. */
export const PROXIED_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** The global connection cap when the open-files limit cannot be read. */
const FALLBACK_MAX_CONNECTIONS = 500;
/** The global connection cap never exceeds this, whatever the open-files limit. */
const MAX_CONNECTIONS_CEILING = 10_000;

/**
 * The default global connection cap: half the soft open-files limit (the rest stays for Redis,
 * logs and the files the process reads), at most 10,000; 500 where the limit cannot be read.
 */
export function defaultMaxConnections(limitsText?: string): number {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return FALLBACK_MAX_CONNECTIONS;
    }
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1];
  if (soft === undefined) return FALLBACK_MAX_CONNECTIONS;
  if (soft === 'unlimited') return MAX_CONNECTIONS_CEILING;
  return Math.max(1, Math.min(MAX_CONNECTIONS_CEILING, Math.floor(Number(soft) / 2)));
}

/** Where the SQLite file of tables and receipts lives without DATA_DIR (relative to the working directory). */
export const DEFAULT_DATA_DIR = './data';

/** Upper bound for WORKERS: far above any core count, low enough to catch a typo. */
export const MAX_WORKERS = 256;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** An integer variable from `min` to `max`; `fallback` when unset (undefined: off when unset). */
const integer = <Fallback extends number | undefined>(
  name: string,
  min: number,
  max: number,
  fallback: Fallback,
) =>
  z
    .string()
    .optional()
    .transform((text, ctx): number | Fallback => {
      if (text === undefined || text.trim() === '') return fallback;
      const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(value) || value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return value;
    });

function isProxyAddress(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (address === undefined || extra !== undefined || isIP(address) === 0) return false;
  if (bits === undefined) return true;
  const max = isIP(address) === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}

const trustProxy = z
  .string()
  .optional()
  .transform((text, ctx): TrustProxy => {
    const value = text?.trim() ?? '';
    if (value === '' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    if (entries.every(isProxyAddress)) return entries.join(',');
    ctx.addIssue({
      code: 'custom',
      message: 'TRUST_PROXY must be true, false, a hop count, or a comma list of IP addresses or CIDR ranges',
    });
    return z.NEVER;
  });

/** `text` as a URL, or undefined when it is none. */
const urlOf = (text: string): URL | undefined => (URL.canParse(text) ? new URL(text) : undefined);

const redisUrl = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return undefined;
    const url = urlOf(text.trim());
    if (
      url === undefined ||
      (url.protocol !== 'redis:' && url.protocol !== 'rediss:') ||
      url.hostname === ''
    ) {
      ctx.addIssue({ code: 'custom', message: 'REDIS_URL must be a redis:// or rediss:// URL with a host' });
      return z.NEVER;
    }
    return text.trim();
  });

/** A host name or IP address to bind; loopback when unset. */
const host = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const value = text?.trim() || '127.0.0.1';
      if (!/^[A-Za-z0-9.:-]+$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a host name or an IP address` });
        return z.NEVER;
      }
      return value;
    });

const logLevel = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const value = text?.trim() || 'info';
    const level = LOG_LEVELS.find((known) => known === value);
    if (level === undefined) {
      ctx.addIssue({ code: 'custom', message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` });
      return z.NEVER;
    }
    return level;
  });

const optionalPath = z
  .string()
  .optional()
  .transform((text) => (text === undefined || text.trim() === '' ? undefined : text.trim()));

/** A variable that must match `pattern` when set; what it accepts is said in `accepts`. */
const matching = (name: string, pattern: RegExp, accepts: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const value = text?.trim() ?? '';
      if (value === '') return undefined;
      if (!pattern.test(value)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be ${accepts}` });
        return z.NEVER;
      }
      return value;
    });

/** An http:// or https:// URL without a query, its trailing slashes dropped; an error naming `name` else. */
const httpUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      const value = text?.trim() ?? '';
      if (value === '') return undefined;
      const url = urlOf(value);
      if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '') {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be an http:// or https:// URL without a query`,
        });
        return z.NEVER;
      }
      return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    });

const EnvSchema = z.object({
  PORT: integer('PORT', 0, 65_535, 3000),
  HOST: host('HOST'),
  RATE_LIMIT_MAX: integer('RATE_LIMIT_MAX', 1, 1_000_000_000, LIMITS.rateLimitMax),
  RATE_LIMIT_WINDOW_MS: integer('RATE_LIMIT_WINDOW_MS', 1, 2_147_483_647, LIMITS.rateLimitWindowMs),
  REDIS_URL: redisUrl,
  TRUST_PROXY: trustProxy,
  DICE_PER_ROLL: integer('DICE_PER_ROLL', 1, LIMITS.dicePerRoll * 1000, LIMITS.dicePerRoll),
  DICE_PER_BATCH: integer('DICE_PER_BATCH', 1, LIMITS.dicePerBatch * 1000, LIMITS.dicePerBatch),
  BODY_LIMIT_BYTES: integer('BODY_LIMIT_BYTES', 64, 100 * 1024 * 1024, LIMITS.bodyBytes),
  LOG_LEVEL: logLevel,
  WORKERS: integer('WORKERS', 1, MAX_WORKERS, 1),
  SHUTDOWN_GRACE_MS: integer('SHUTDOWN_GRACE_MS', 1, 600_000, SHUTDOWN_GRACE_MS),
  THROWS_PER_REQUEST: integer('THROWS_PER_REQUEST', 1, 10_000_000, LIMITS.throwsPerRequest),
  THROWS_BURST: integer('THROWS_BURST', 1, 1_000_000_000, LIMITS.throwsBurst),
  THROWS_PER_SECOND: integer('THROWS_PER_SECOND', 1, 1_000_000_000, LIMITS.throwsPerSecond),
  STATS_BURST_MS: integer('STATS_BURST_MS', 1, 1_000_000_000, LIMITS.statsBurstMs),
  STATS_MS_PER_SECOND: integer('STATS_MS_PER_SECOND', 1, 1_000_000, LIMITS.statsMsPerSecond),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 1, 3_600_000, LIMITS.requestTimeoutMs),
  HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 1, 3_600_000, LIMITS.headersTimeoutMs),
  KEEP_ALIVE_TIMEOUT_MS: integer('KEEP_ALIVE_TIMEOUT_MS', 1, 3_600_000, 0),
  CONNECTIONS_PER_ADDRESS: integer('CONNECTIONS_PER_ADDRESS', 1, 1_000_000, LIMITS.connectionsPerAddress),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS', 1, 1_000_000, 0),
  IPV6_PREFIX_LENGTH: integer('IPV6_PREFIX_LENGTH', 1, 128, LIMITS.ipv6PrefixLength),
  REDIS_STARTUP_WAIT_MS: integer('REDIS_STARTUP_WAIT_MS', 0, 600_000, LIMITS.redisStartupWaitMs),
  SIGNING_KEY_FILE: optionalPath,
  SIGNING_RETIRED_KEYS_FILE: optionalPath,
  DATA_DIR: optionalPath,
  TABLE_RETENTION_DAYS: integer('TABLE_RETENTION_DAYS', 1, 3650, LIMITS.tableRetentionDays),
  TABLE_MAX_ENTRIES: integer('TABLE_MAX_ENTRIES', 1, 1_000_000, LIMITS.tableMaxEntries),
  TABLES_PER_HOUR: integer('TABLES_PER_HOUR', 1, 1_000_000, LIMITS.tablesPerHour),
  DISCORD_PUBLIC_KEY: matching('DISCORD_PUBLIC_KEY', /^[0-9a-fA-F]{64}$/, '64 hexadecimal digits'),
  DISCORD_APPLICATION_ID: matching(
    'DISCORD_APPLICATION_ID',
    /^\d{15,25}$/,
    'a Discord application id (digits)',
  ),
  PUBLIC_URL: httpUrl('PUBLIC_URL'),
  DISCORD_API_URL: httpUrl('DISCORD_API_URL'),
  // Any value; only `production` changes anything (checkOutputs).
  NODE_ENV: z.string().optional(),
  SSE_CONNECTIONS_PER_ADDRESS: integer(
    'SSE_CONNECTIONS_PER_ADDRESS',
    1,
    100_000,
    LIMITS.sseConnectionsPerAddress,
  ),
  // Unset: the operations listener is off.
  METRICS_PORT: integer('METRICS_PORT', 0, 65_535, undefined),
  METRICS_HOST: host('METRICS_HOST'),
});

/** Reads the configuration; throws ConfigError with one line naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => issue.message);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}.`);
  }
  const e = parsed.data;
  if (e.WORKERS > 1 && e.REDIS_URL === undefined) {
    throw new ConfigError(
      `Invalid configuration: WORKERS=${e.WORKERS} needs REDIS_URL (in memory, each worker would count its own rate limit, multiplying it by ${e.WORKERS}).`,
    );
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `Invalid configuration: HEADERS_TIMEOUT_MS (${e.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS}).`,
    );
  }
  if (e.METRICS_PORT === undefined && env.METRICS_HOST?.trim()) {
    throw new ConfigError(
      'Invalid configuration: METRICS_HOST is set but METRICS_PORT is not; the operations listener is off until METRICS_PORT names its port.',
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(
      `Invalid configuration: METRICS_PORT (${e.METRICS_PORT}) must differ from PORT: metrics and readiness are never served on the public port.`,
    );
  }
  if ((e.DISCORD_PUBLIC_KEY === undefined) !== (e.DISCORD_APPLICATION_ID === undefined)) {
    throw new ConfigError(
      'Invalid configuration: DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID go together (docs/discord.md); set both or neither.',
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    rateLimitMax: e.RATE_LIMIT_MAX,
    rateLimitWindowMs: e.RATE_LIMIT_WINDOW_MS,
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    dicePerRoll: e.DICE_PER_ROLL,
    dicePerBatch: e.DICE_PER_BATCH,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    workers: e.WORKERS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    throwsPerRequest: e.THROWS_PER_REQUEST,
    throwsBurst: e.THROWS_BURST,
    throwsPerSecond: e.THROWS_PER_SECOND,
    statsBurstMs: e.STATS_BURST_MS,
    statsMsPerSecond: e.STATS_MS_PER_SECOND,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    // 0 = unset: the default depends on whether a proxy sits in front.
    keepAliveTimeoutMs:
      e.KEEP_ALIVE_TIMEOUT_MS ||
      (e.TRUST_PROXY === false ? KEEP_ALIVE_TIMEOUT_MS : PROXIED_KEEP_ALIVE_TIMEOUT_MS),
    connectionsPerAddress: e.CONNECTIONS_PER_ADDRESS,
    maxConnections: e.MAX_CONNECTIONS || defaultMaxConnections(),
    ipv6PrefixLength: e.IPV6_PREFIX_LENGTH,
    redisStartupWaitMs: e.REDIS_STARTUP_WAIT_MS,
    signingKeyFile: e.SIGNING_KEY_FILE,
    signingRetiredKeysFile: e.SIGNING_RETIRED_KEYS_FILE,
    dataDir: e.DATA_DIR ?? DEFAULT_DATA_DIR,
    tableRetentionDays: e.TABLE_RETENTION_DAYS,
    tableMaxEntries: e.TABLE_MAX_ENTRIES,
    tablesPerHour: e.TABLES_PER_HOUR,
    sseConnectionsPerAddress: e.SSE_CONNECTIONS_PER_ADDRESS,
    checkOutputs: e.NODE_ENV !== 'production',
    discordPublicKey: e.DISCORD_PUBLIC_KEY?.toLowerCase(),
    discordApplicationId: e.DISCORD_APPLICATION_ID,
    discordApiUrl: (e.DISCORD_API_URL ?? 'https://discord.com/api/v10').replace(/\/+$/, ''),
    publicUrl: e.PUBLIC_URL,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
  };
}

/** The defaults, for tests and embedders that build the app without an environment. */
export const defaultConfig = (overrides: Partial<Config> = {}): Config => ({
  ...loadConfig({}),
  ...overrides,
});

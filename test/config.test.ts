// Configuration from the environment: defaults, accepted forms, and a bad value refused with one
// clear line naming the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultMaxConnections, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      rateLimitMax: 60,
      rateLimitWindowMs: 60_000,
      redisUrl: undefined,
      trustProxy: false,
      dicePerRoll: 1000,
      dicePerBatch: 1000,
      bodyLimitBytes: 8192,
      logLevel: 'info',
      workers: 1,
      shutdownGraceMs: 10_000,
      throwsPerRequest: 5_000,
      throwsBurst: 10_000,
      throwsPerSecond: 5_000,
      statsBurstMs: 3_000,
      statsMsPerSecond: 50,
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 5_000,
      connectionsPerAddress: 32,
      maxConnections: defaultMaxConnections(),
      ipv6PrefixLength: 64,
      redisStartupWaitMs: 2_000,
      signingKeyFile: undefined,
      signingRetiredKeysFile: undefined,
      dataDir: './data',
      tableRetentionDays: 30,
      tableMaxEntries: 10_000,
      tablesPerHour: 20,
      sseConnectionsPerAddress: 20,
      checkOutputs: true,
      discordPublicKey: undefined,
      discordApplicationId: undefined,
      discordApiUrl: 'https://discord.com/api/v10',
      publicUrl: undefined,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      RATE_LIMIT_MAX: '100',
      RATE_LIMIT_WINDOW_MS: '1000',
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      TRUST_PROXY: 'true',
      DICE_PER_ROLL: '500',
      DICE_PER_BATCH: '2000',
      BODY_LIMIT_BYTES: '4096',
      LOG_LEVEL: 'debug',
      WORKERS: '4',
      SHUTDOWN_GRACE_MS: '2500',
      THROWS_PER_REQUEST: '20000',
      THROWS_BURST: '40000',
      THROWS_PER_SECOND: '2000',
      STATS_BURST_MS: '6000',
      STATS_MS_PER_SECOND: '100',
      REQUEST_TIMEOUT_MS: '3000',
      HEADERS_TIMEOUT_MS: '2000',
      KEEP_ALIVE_TIMEOUT_MS: '1500',
      CONNECTIONS_PER_ADDRESS: '8',
      MAX_CONNECTIONS: '900',
      IPV6_PREFIX_LENGTH: '56',
      REDIS_STARTUP_WAIT_MS: '0',
      SIGNING_KEY_FILE: '/etc/fairdice/signing.pem',
      SIGNING_RETIRED_KEYS_FILE: '/etc/fairdice/retired.json',
      DATA_DIR: '/var/lib/fairdice',
      TABLE_RETENTION_DAYS: '7',
      TABLE_MAX_ENTRIES: '500',
      TABLES_PER_HOUR: '3',
      SSE_CONNECTIONS_PER_ADDRESS: '5',
      NODE_ENV: 'production',
      DISCORD_PUBLIC_KEY: 'AB'.repeat(32),
      DISCORD_APPLICATION_ID: '123456789012345678',
      DISCORD_API_URL: 'http://127.0.0.1:4000/api/',
      PUBLIC_URL: 'https://dice.example.com/',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.7',
    });
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      rateLimitMax: 100,
      rateLimitWindowMs: 1000,
      redisUrl: 'redis://127.0.0.1:6379/0',
      trustProxy: true,
      dicePerRoll: 500,
      dicePerBatch: 2000,
      bodyLimitBytes: 4096,
      logLevel: 'debug',
      workers: 4,
      shutdownGraceMs: 2500,
      throwsPerRequest: 20_000,
      throwsBurst: 40_000,
      throwsPerSecond: 2000,
      statsBurstMs: 6000,
      statsMsPerSecond: 100,
      requestTimeoutMs: 3000,
      headersTimeoutMs: 2000,
      keepAliveTimeoutMs: 1500,
      connectionsPerAddress: 8,
      maxConnections: 900,
      ipv6PrefixLength: 56,
      redisStartupWaitMs: 0,
      signingKeyFile: '/etc/fairdice/signing.pem',
      signingRetiredKeysFile: '/etc/fairdice/retired.json',
      dataDir: '/var/lib/fairdice',
      tableRetentionDays: 7,
      tableMaxEntries: 500,
      tablesPerHour: 3,
      sseConnectionsPerAddress: 5,
      checkOutputs: false,
      discordPublicKey: 'ab'.repeat(32),
      discordApplicationId: '123456789012345678',
      discordApiUrl: 'http://127.0.0.1:4000/api',
      publicUrl: 'https://dice.example.com',
      metricsPort: 9464,
      metricsHost: '10.0.0.7',
    });
  });

  it("keeps idle connections 5 s, or 65 s behind a proxy (above load balancers' 60 s idle)", () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(5_000);
    expect(loadConfig({ TRUST_PROXY: '1' }).keepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ TRUST_PROXY: '1', KEEP_ALIVE_TIMEOUT_MS: '30000' }).keepAliveTimeoutMs).toBe(30_000);
  });

  it('serves metrics and readiness only on a port of their own, off unless METRICS_PORT is set', () => {
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(
      'Invalid configuration: METRICS_PORT (3000) must differ from PORT: metrics and readiness are never served on the public port.',
    );
    expect(() => loadConfig({ METRICS_HOST: '0.0.0.0' })).toThrow(
      /METRICS_HOST is set but METRICS_PORT is not/,
    );
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '9464', METRICS_HOST: 'a b' })).toThrow(
      /METRICS_HOST must be a host name or an IP address/,
    );
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' })).toThrow(
      'Invalid configuration: HEADERS_TIMEOUT_MS (2000) must not exceed REQUEST_TIMEOUT_MS (1000).',
    );
  });

  it('caps connections at half the open-files limit, at most 10,000', () => {
    const limits = (soft: string) =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                 524288               files\n`;
    expect(defaultMaxConnections(limits('1024'))).toBe(512);
    expect(defaultMaxConnections(limits('1048576'))).toBe(10_000);
    expect(defaultMaxConnections(limits('unlimited'))).toBe(10_000);
    expect(defaultMaxConnections('no such line')).toBe(500);
  });

  it.each([
    ['false', false],
    ['', false],
    ['2', 2],
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.0/8, 192.168.1.1', '10.0.0.0/8,192.168.1.1'],
    ['::1', '::1'],
  ])('TRUST_PROXY=%j is %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('PORT 0 asks for any free port', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '3.5'],
    ['RATE_LIMIT_MAX', '0'],
    ['TABLE_RETENTION_DAYS', '0'],
    ['TABLE_MAX_ENTRIES', 'many'],
    ['SSE_CONNECTIONS_PER_ADDRESS', '0'],
    ['RATE_LIMIT_WINDOW_MS', 'soon'],
    ['DICE_PER_ROLL', '0'],
    ['DICE_PER_BATCH', '1e3'],
    ['BODY_LIMIT_BYTES', '12'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'yes please'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['HOST', 'bad host'],
    ['WORKERS', '0'],
    ['WORKERS', '257'],
    ['SHUTDOWN_GRACE_MS', '0'],
    ['THROWS_PER_REQUEST', '0'],
    ['REQUEST_TIMEOUT_MS', 'ten'],
    ['HEADERS_TIMEOUT_MS', '0'],
    ['KEEP_ALIVE_TIMEOUT_MS', '0'],
    ['CONNECTIONS_PER_ADDRESS', '0'],
    ['MAX_CONNECTIONS', '-5'],
    ['IPV6_PREFIX_LENGTH', '129'],
    ['REDIS_STARTUP_WAIT_MS', '2s'],
  ])('refuses %s=%j with one line naming it', (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^Invalid configuration: /);
  });

  it('refuses WORKERS>1 without REDIS_URL with one line saying why', () => {
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(
      /^Invalid configuration: WORKERS=2 needs REDIS_URL \(in memory, each worker would count its own rate limit, multiplying it by 2\)\.$/,
    );
    expect(loadConfig({ WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379' }).workers).toBe(2);
    expect(loadConfig({ WORKERS: '1' }).workers).toBe(1);
  });

  it('takes the Discord application as a pair, its key as hex, and a public URL without a query', () => {
    const key = '0f'.repeat(32);
    expect(() => loadConfig({ DISCORD_PUBLIC_KEY: key })).toThrow(
      /DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID go together/,
    );
    expect(() => loadConfig({ DISCORD_APPLICATION_ID: '123456789012345678' })).toThrow(ConfigError);
    expect(() =>
      loadConfig({ DISCORD_PUBLIC_KEY: 'xyz', DISCORD_APPLICATION_ID: '1234567890123456' }),
    ).toThrow(/DISCORD_PUBLIC_KEY must be 64 hexadecimal digits/);
    expect(() => loadConfig({ DISCORD_PUBLIC_KEY: key, DISCORD_APPLICATION_ID: 'app' })).toThrow(
      /DISCORD_APPLICATION_ID must be a Discord application id/,
    );
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://dice.example.com' })).toThrow(/PUBLIC_URL must be/);
    expect(() => loadConfig({ PUBLIC_URL: 'https://dice.example.com/?a=1' })).toThrow(/PUBLIC_URL must be/);
    // Each URL's error names its own variable.
    expect(() => loadConfig({ DISCORD_API_URL: 'discord.com/api/v10' })).toThrow(
      new ConfigError(
        'Invalid configuration: DISCORD_API_URL must be an http:// or https:// URL without a query.',
      ),
    );
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://x', DISCORD_API_URL: 'ftp://y' })).toThrow(
      /: PUBLIC_URL must be .*; DISCORD_API_URL must be /,
    );
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/dice/' }).publicUrl).toBe(
      'https://example.com/dice',
    );
    expect(
      loadConfig({ DISCORD_PUBLIC_KEY: '', DISCORD_APPLICATION_ID: ' ' }).discordPublicKey,
    ).toBeUndefined();
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT.*LOG_LEVEL/);
  });
});

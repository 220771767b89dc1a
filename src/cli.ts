#!/usr/bin/env node
// The `fairdice` command. `fairdice mcp` serves the MCP tools over stdio for a desktop AI client
// (docs/mcp.md), rolling in this process with the same random source as the service; stdout
// carries the protocol, so every log line goes to stderr. `fairdice discord register` puts the
// Discord application's commands to Discord (docs/discord.md).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { StatsService } from './api/stats-service.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { commandsJson, installLinks, registerCommands, registerSettings } from './discord/register.js';
import { localDataDir, localSigningKey } from './mcp/local.js';
import { createMcpServer } from './mcp/server.js';
import { cryptoRandom } from './roll/random.js';
import { Trust } from './trust/service.js';
import { VERSION } from './version.js';

const USAGE = `fairdice ${VERSION}

Usage:
  fairdice mcp                          serve the dice tools over stdio to an MCP client (docs/mcp.md)
  fairdice discord register [--dry-run] put the Discord commands to Discord, with DISCORD_APPLICATION_ID
                                        and DISCORD_BOT_TOKEN; --dry-run prints them (docs/discord.md)
  fairdice --help                       this text

The HTTP service is started with \`npm start\` in the repository (docs/operations.md).
`;

/**
 * Follows the requests the client sent that have no response yet; the function it returns
 * resolves once every one has its response written, or after `graceMs` at most.
 */
function answersPending(transport: Transport): (graceMs: number) => Promise<void> {
  const open = new Set<RequestId>();
  let idle: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) open.add(message.id);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if (('result' in message || 'error' in message) && message.id !== undefined) {
      open.delete(message.id);
      if (open.size === 0) idle?.();
    }
  };
  return (graceMs) =>
    new Promise((resolve) => {
      if (open.size === 0) return resolve();
      idle = resolve;
      setTimeout(resolve, graceMs).unref();
    });
}

async function serveMcp(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel }, pino.destination(2));
  // Tables and receipts in the embedded store (or Redis with REDIS_URL), as the service keeps
  // them, in the user's data directory unless DATA_DIR says otherwise (src/mcp/local.ts).
  const dataDir = localDataDir(process.env);
  let signingKeyFile = config.signingKeyFile;
  if (signingKeyFile === undefined) {
    const key = localSigningKey(dataDir);
    signingKeyFile = key.file;
    if (key.created) {
      log.warn(
        { file: key.file },
        'made a signing key for receipts in the data directory: keep it with the tables, as receipts verify only against it',
      );
    }
  }
  const trust = await Trust.fromConfig({ ...config, dataDir, signingKeyFile }, log);
  // A DATA_DIR that cannot be written stops the command here, with its reason, as it does the service.
  await trust.open(log);
  // Its worker threads start on the first stats call only.
  const stats = new StatsService({ dicePerRoll: config.dicePerRoll });
  const ctx = {
    log,
    random: cryptoRandom,
    dicePerRoll: config.dicePerRoll,
    dicePerBatch: config.dicePerBatch,
    throwsPerRequest: config.throwsPerRequest,
    stats,
    trust,
    // One user: the tables-per-hour quota counts against this one name.
    address: 'local',
    logError: (error: unknown, message: string) => log.error({ err: error }, message),
  };
  // One client, one process: no rate limit.
  const server = createMcpServer({ settingOf: () => ({ ctx }) });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  const answered = answersPending(transport);

  // The client closing stdin (or a signal) ends the process: the requests under way are
  // answered (within SHUTDOWN_GRACE_MS), then the stats threads and the store close and nothing
  // is left to keep the process alive.
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await answered(config.shutdownGraceMs);
      await server.close();
      await stats.close();
      await trust.close();
    })();
    return closing;
  };
  process.stdin.once('end', () => void close());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void close().then(() => process.exit(0)));
  }
}

/** `fairdice discord register [--dry-run]`. */
async function registerDiscord(dryRun: boolean): Promise<void> {
  if (dryRun) {
    process.stdout.write(`${commandsJson()}\n`);
    return;
  }
  const settings = registerSettings(process.env);
  if (typeof settings === 'string') {
    process.stderr.write(`fairdice: ${settings}\n`);
    process.exit(1);
  }
  const names = await registerCommands(settings);
  const links = installLinks(settings.applicationId);
  process.stdout.write(
    [
      `Registered ${names.length} commands with Discord: ${names.map((name) => `/${name}`).join(', ')}.`,
      `Install to a server: ${links.guild}`,
      `Install to your account: ${links.user}`,
      '',
    ].join('\n'),
  );
}

async function main(args: readonly string[]): Promise<void> {
  const [command] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (
    command === 'discord' &&
    args[1] === 'register' &&
    (args.length === 2 || (args.length === 3 && args[2] === '--dry-run'))
  ) {
    await registerDiscord(args[2] === '--dry-run');
    return;
  }
  if (command !== 'mcp' || args.length > 1) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`fairdice: ${error.message}\n`);
    process.exit(1);
  }
  await serveMcp(config);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`fairdice: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

#!/usr/bin/env node
// The `fairdice` command. `fairdice mcp` serves the MCP tools over stdio for a desktop AI client
// (docs/mcp.md), rolling in this process with the same random source as the service; stdout
// carries the protocol, so every log line goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { StatsService } from './api/stats-service.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createMcpServer } from './mcp/server.js';
import { cryptoRandom } from './roll/random.js';
import { VERSION } from './version.js';

const USAGE = `fairdice ${VERSION}

Usage:
  fairdice mcp      serve the dice tools over stdio to an MCP client (docs/mcp.md)
  fairdice --help   this text

The HTTP service is started with \`npm start\` in the repository (docs/operations.md).
`;

async function serveMcp(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel }, pino.destination(2));
  const ctx = {
    log,
    random: cryptoRandom,
    dicePerRoll: config.dicePerRoll,
    dicePerBatch: config.dicePerBatch,
    // Its worker threads start on the first stats call only.
    stats: new StatsService({ dicePerRoll: config.dicePerRoll }),
    logError: (error: unknown, message: string) => log.error({ err: error }, message),
  };
  // One client, one process: no rate limit.
  const server = createMcpServer({ settingOf: () => ({ ctx }) });
  // The process ends when the client closes stdin: nothing else keeps it alive.
  await server.connect(new StdioServerTransport());
}

async function main(args: readonly string[]): Promise<void> {
  const [command] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
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

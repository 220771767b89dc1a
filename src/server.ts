// Serves fairdice: loads the configuration from the environment, listens on HOST:PORT, and on
// SIGTERM/SIGINT stops accepting, lets in-flight requests finish, then exits 0.
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './http/app.js';

/** How long in-flight requests get to finish before the process gives up on them. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`fairdice: ${error.message}\n`);
    process.exit(1);
  }
  const app = await buildApp(config);
  await app.listen({ host: config.host, port: config.port });

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `fairdice: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});

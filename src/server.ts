// Serves fairdice: loads the configuration from the environment, then either serves on HOST:PORT
// in this process, or (WORKERS>1) runs the cluster primary whose workers each run this file too.
// With METRICS_PORT, the operations listener serves the metrics and the readiness beside it (in
// the primary for all workers: docs/operations.md#metrics-and-readiness).
// First, before anything calls process.nextTick (src/tick-maps.ts).
import './tick-maps.js';
import cluster from 'node:cluster';
import { answerReadiness, runPrimary } from './cluster.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { metricsOf, type OperationsListener, type Readiness, startOperationsListener } from './metrics.js';
import { shutDownOnSignals } from './shutdown.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`fairdice: ${error.message}\n`);
    process.exit(1);
  }
  // Readable lines for a person at a terminal, JSON lines for everything else (a pipe, a file, a
  // collector). Cluster workers share the primary's stdout, so they decide alike.
  const readable = process.stdout.isTTY === true;
  if (config.workers > 1 && cluster.isPrimary) {
    const { serviceLogger } = await import('./http/request-log.js');
    runPrimary({
      workers: config.workers,
      graceMs: config.shutdownGraceMs,
      logger: serviceLogger(config.logLevel, undefined, readable),
      operations:
        config.metricsPort === undefined ? undefined : { host: config.metricsHost, port: config.metricsPort },
    });
    return;
  }
  // Only a process that serves loads the application: the cluster primary starts its workers
  // without paying for it, and a replacement worker is not kept waiting behind it.
  const [{ buildApp }, { Trust }, { serviceLogger }, { ServiceMetrics }] = await Promise.all([
    import('./http/app.js'),
    import('./trust/service.js'),
    import('./http/request-log.js'),
    import('./metrics.js'),
  ]);
  // The key and the store at start, not at the first receipt: a key file others can read, or a
  // DATA_DIR that cannot be written, stops start-up here with its reason.
  // One logger for the process: fastify has none of its own (src/http/request-log.ts).
  const log = serviceLogger(config.logLevel, undefined, readable);
  const trust = await Trust.fromConfig(config, log);
  trust.announce();
  await trust.open(log);
  const metrics = config.metricsPort === undefined ? undefined : new ServiceMetrics();
  const app = await buildApp(config, { trust, logger: log, metrics });
  // Ready once the public port listens, and no longer from the moment a shutdown begins, before
  // the listening socket closes.
  let listening = false;
  let stopping = false;
  const readiness = (): Readiness => {
    if (stopping) return { ready: false, reasons: ['shutting down'] };
    if (!listening) return { ready: false, reasons: ['starting: not listening yet'] };
    return app.readiness();
  };
  let operations: OperationsListener | undefined;
  if (metrics !== undefined && cluster.isWorker) {
    // The primary answers for every worker: it sums their metrics and asks their readiness.
    metrics.shareWithPrimary();
    answerReadiness(readiness);
  } else if (metrics !== undefined && config.metricsPort !== undefined) {
    operations = await startOperationsListener({
      host: config.metricsHost,
      port: config.metricsPort,
      metrics: metricsOf(metrics.registry),
      readiness,
    });
    log.info({ port: operations.port }, 'operations listener (metrics, readiness) started');
  }
  const close = async () => {
    stopping = true;
    await app.close();
    await trust.close();
    // Last: readiness answers 503 while requests drain.
    await operations?.close();
  };
  shutDownOnSignals({ close, graceMs: config.shutdownGraceMs, logger: log });
  await app.listen({
    host: config.host,
    port: config.port,
    // Fastify has no logger to write its "Server listening at" lines with; it asks this for the
    // text of each address it would log, so each line is written here, the same as fastify's.
    listenTextResolver: (address) => {
      const text = `Server listening at ${address}`;
      log.info(text);
      return text;
    },
  });
  listening = true;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `fairdice: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});

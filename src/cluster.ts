// The cluster primary for WORKERS>1: N worker processes share one port; a worker that dies is
// replaced, and a SIGTERM/SIGINT is passed to every worker, exiting 0 once they have all finished.

import cluster, { type Worker } from 'node:cluster';
import { clusterMetrics, type Readiness, startOperationsListener } from './metrics.js';
import { FORCED_EXIT_CODE, SHUTDOWN_MESSAGE, type ShutdownLogger } from './shutdown.js';

export interface PrimaryOptions {
  workers: number;
  /** The workers' grace period; the primary waits a little longer before it kills them. */
  graceMs: number;
  logger: ShutdownLogger;
  /** The operations listener (METRICS_HOST, METRICS_PORT), answered by the primary for every worker; absent: off. */
  operations?: { host: string; port: number } | undefined;
}

/** The primary's question to a worker over IPC, and the worker's answer. */
const READINESS_REQUEST = 'fairdice:readiness?';
const READINESS_ANSWER = 'fairdice:readiness';

/** How long the primary waits for a worker's readiness before it counts the worker as not ready. */
const READINESS_WAIT_MS = 1_000;

interface ReadinessMessage {
  type: typeof READINESS_ANSWER;
  id: number;
  readiness: Readiness;
}

/** In a worker: answers the primary's readiness questions with `readiness()`. */
export function answerReadiness(readiness: () => Readiness): void {
  process.on('message', (message: unknown) => {
    const { type, id } = (message ?? {}) as { type?: unknown; id?: unknown };
    if (type !== READINESS_REQUEST || process.send === undefined) return;
    process.send({ type: READINESS_ANSWER, id, readiness: readiness() });
  });
}

/** Asks one worker whether it is ready; not ready when it does not answer in time. */
function askWorker(worker: Worker, id: number): Promise<Readiness> {
  return new Promise((resolve) => {
    const done = (readiness: Readiness) => {
      clearTimeout(timer);
      worker.off('message', listen);
      resolve(readiness);
    };
    const listen = (message: unknown) => {
      const answer = message as Partial<ReadinessMessage> | null;
      if (answer?.type === READINESS_ANSWER && answer.id === id && answer.readiness !== undefined)
        done(answer.readiness);
    };
    const timer = setTimeout(
      () => done({ ready: false, reasons: [`no readiness answer within ${READINESS_WAIT_MS} ms`] }),
      READINESS_WAIT_MS,
    );
    worker.on('message', listen);
    if (!worker.isConnected()) {
      done({ ready: false, reasons: ['not connected'] });
      return;
    }
    worker.send({ type: READINESS_REQUEST, id });
  });
}

/** Slack on top of the workers' own grace period, so a worker's own timeout always fires first. */
const PRIMARY_EXTRA_GRACE_MS = 2_000;

/**
 * Forks the workers (this same script, run by node:cluster) and supervises them. The workers
 * share the listening socket and the kernel hands each connection to one of them
 * (`SCHED_NONE`): the primary never holds a client connection, so a worker that dies takes only
 * its own connections down (their clients see a reset at once) and leaves nothing behind in the
 * primary. With node's default round-robin the primary accepts every connection and passes it
 * on; one in transit to a dying worker was left open in the primary with its client waiting.
 */
export function runPrimary({ workers, graceMs, logger, operations }: PrimaryOptions): void {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const live = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let stopping = false;
  let unclean = false;
  let asked = 0;

  /** Ready when every worker listens and says it is ready, and no shutdown has begun. */
  const readiness = async (): Promise<Readiness> => {
    if (stopping) return { ready: false, reasons: ['shutting down'] };
    const serving = [...live].filter((worker) => listened.has(worker));
    const reasons: string[] = [];
    if (serving.length < workers) reasons.push(`${serving.length} of ${workers} workers listening`);
    const answers = await Promise.all(serving.map((worker) => askWorker(worker, ++asked)));
    answers.forEach((answer, index) => {
      for (const reason of answer.reasons) reasons.push(`worker ${serving[index]!.process.pid}: ${reason}`);
    });
    if (stopping) return { ready: false, reasons: ['shutting down'] };
    return { ready: reasons.length === 0, reasons };
  };

  const stopAll = (exitCode: number) => {
    for (const worker of live) worker.process.kill('SIGKILL');
    process.exit(exitCode);
  };

  const fork = () => {
    const worker = cluster.fork();
    live.add(worker);
    worker.once('listening', (address) => {
      listened.add(worker);
      logger.info({ worker: worker.process.pid, port: address.port }, 'worker listening');
    });
    worker.once('exit', (code: number | null, signal: string | null) => {
      live.delete(worker);
      const details = { worker: worker.process.pid, code, signal };
      if (stopping) {
        if (code !== 0) unclean = true;
        logger.info(details, 'worker stopped');
        if (live.size === 0) {
          logger.info({ clean: !unclean }, 'all workers stopped');
          process.exit(unclean ? FORCED_EXIT_CODE : 0);
        }
        return;
      }
      if (!listened.has(worker)) {
        // A worker that cannot even start (bad port, port taken) would be replaced forever.
        logger.error(details, 'worker failed to start: stopping');
        stopAll(FORCED_EXIT_CODE);
        return;
      }
      logger.error(details, 'worker died: starting a replacement');
      fork();
    });
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: killing workers and exiting now');
      stopAll(FORCED_EXIT_CODE);
      return;
    }
    stopping = true;
    logger.info({ signal, workers: live.size }, 'shutting down workers');
    for (const worker of live) {
      if (worker.isConnected()) worker.send(SHUTDOWN_MESSAGE);
    }
    setTimeout(() => {
      logger.error({ graceMs }, 'workers did not stop within the grace period: killing them');
      stopAll(FORCED_EXIT_CODE);
    }, graceMs + PRIMARY_EXTRA_GRACE_MS).unref();
    if (live.size === 0) process.exit(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  logger.info({ workers }, 'starting workers');
  for (let i = 0; i < workers; i++) fork();
  if (operations !== undefined) {
    startOperationsListener({ ...operations, metrics: clusterMetrics(), readiness }).then(
      (listener) => logger.info({ port: listener.port }, 'operations listener (metrics, readiness) started'),
      (error: unknown) => {
        logger.error({ err: error }, 'operations listener failed to start: stopping');
        stopAll(FORCED_EXIT_CODE);
      },
    );
  }
}

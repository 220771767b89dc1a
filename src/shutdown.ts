// Graceful shutdown of one serving process: the first SIGTERM/SIGINT (or the cluster primary's
// request) stops new connections, lets in-flight requests finish, closes Redis and exits 0.

/** How long in-flight requests get to finish before the process gives up on them (SHUTDOWN_GRACE_MS). */
export const SHUTDOWN_GRACE_MS = 10_000;

/** Exit code when the process stops without finishing its requests: a second signal or the grace period ran out. */
export const FORCED_EXIT_CODE = 1;

/** The IPC message a cluster primary sends a worker to start its graceful shutdown. */
export const SHUTDOWN_MESSAGE = 'fairdice:shutdown';

export interface ShutdownLogger {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface ShutdownOptions {
  /** Closes the server and everything it holds (fastify close: server, then onClose hooks such as Redis). */
  close: () => Promise<void>;
  graceMs: number;
  logger: ShutdownLogger;
}

/** Ends the process once the grace is over: set while a shutdown is under way. */
let overdueCheck: (() => void) | undefined;

/**
 * Called before each request's work (a fastify preHandler): past the grace, exits at once. The
 * deadline timer alone could fire late, behind a backlog of requests whose bodies all arrived
 * together; this way at most one request's work runs past the deadline.
 */
export function exitIfPastGrace(): void {
  overdueCheck?.();
}

/**
 * Installs the signal handlers. A signal arriving during the shutdown exits at once; the
 * primary's IPC request does not count as one, because on Ctrl-C a worker receives both.
 */
export function shutDownOnSignals({ close, graceMs, logger }: ShutdownOptions): void {
  let shuttingDown = false;

  const giveUp = () => {
    logger.error({ graceMs }, 'shutdown grace period over: exiting with requests unfinished');
    process.exit(FORCED_EXIT_CODE);
  };

  const begin = (trigger: string) => {
    shuttingDown = true;
    logger.info(
      { trigger, graceMs },
      'shutting down: refusing new connections, finishing in-flight requests',
    );
    const deadlineAt = performance.now() + graceMs;
    const deadline = setTimeout(giveUp, graceMs);
    deadline.unref();
    overdueCheck = () => {
      if (performance.now() >= deadlineAt) giveUp();
    };
    close().then(
      () => {
        logger.info({}, 'shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(FORCED_EXIT_CODE);
      },
    );
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (!shuttingDown) {
      begin(signal);
      return;
    }
    logger.warn({ signal }, 'second signal: exiting now');
    process.exit(FORCED_EXIT_CODE);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  if (process.send !== undefined) {
    process.on('message', (message: unknown) => {
      if (message === SHUTDOWN_MESSAGE && !shuttingDown) begin('cluster primary');
    });
  }
}

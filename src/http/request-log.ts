// Each request's logger (`request.log`), made only when the request logs something. Fastify's
// default gives every request its own pino child (the request id bound into it); per-request log
// lines are off (docs/operations.md#logging), so nearly every request would make one and never
// write with it. This logger holds the parent and the bindings and makes that same child on its
// first line: what it writes is exactly what the child would have written, request id included
// (docs/performance.md#logging-off-the-request-path).
//
// Fastify itself is given no logger: with one, it puts `finish` and `error` listeners on every
// response (and reads the clock twice) for its per-request lines, which are off. The service's
// logger is `serviceLogger` below, built by the app (or src/server.ts) and passed to what logs;
// `request.log` is still fastify's, made by `requestLoggerFactoryOf` from that logger. Fastify's
// own instance logger (`app.log`) writes nowhere: nothing in src/ uses it.
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger, pino } from 'pino';

/**
 * The service's pino logger: JSON lines at `level` on `stream` (default: stdout), with the error
 * serializer fastify gives its own pino logger, so every line is the one fastify's logger wrote.
 * With `readable` (src/server.ts asks for it when stdout is a terminal), the same entries as
 * lines for a person instead, by pino-pretty as fastify's documentation recommends: time, level
 * and message, then the other fields indented below.
 */
export function serviceLogger(level: string, stream?: DestinationStream, readable = false): Logger {
  const options = { level, serializers: { err: pino.stdSerializers.err } };
  if (readable) return pino(options, readableLines(stream));
  return stream === undefined ? pino(options) : pino(options, stream);
}

/** pino-pretty, loaded only by a process that logs for a person. Colours only on the terminal. */
function readableLines(stream: DestinationStream | undefined): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'hostname',
    sync: true,
    ...(stream === undefined ? {} : { destination: stream, colorize: false }),
  });
}

export class RequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options?: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The request's pino child, made on first use. */
  get logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#made?.level ?? this.#options?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  // Methods, not arrow-function fields: nothing is made per request but the object itself.
  fatal(...args: unknown[]): void {
    Reflect.apply(this.logger.fatal, this.logger, args);
  }
  error(...args: unknown[]): void {
    Reflect.apply(this.logger.error, this.logger, args);
  }
  warn(...args: unknown[]): void {
    Reflect.apply(this.logger.warn, this.logger, args);
  }
  info(...args: unknown[]): void {
    Reflect.apply(this.logger.info, this.logger, args);
  }
  debug(...args: unknown[]): void {
    Reflect.apply(this.logger.debug, this.logger, args);
  }
  trace(...args: unknown[]): void {
    Reflect.apply(this.logger.trace, this.logger, args);
  }
  silent(...args: unknown[]): void {
    Reflect.apply(this.logger.silent, this.logger, args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger of `log` in place of an eager pino child. The
 * logger fastify passes in is its own, which is silent (it has none), so it is not used; the
 * bindings (the request id) and options (a route's log level) are fastify's.
 */
export function requestLoggerFactoryOf(
  log: FastifyBaseLogger,
): NonNullable<FastifyServerOptions['childLoggerFactory']> {
  return (_silent, bindings, options) => new RequestLogger(log, bindings, options);
}

// Each request's logger (`request.log`), made only when the request logs something. Fastify's
// default gives every request its own pino child (the request id bound into it); per-request log
// lines are off (docs/operations.md#logging), so nearly every request would make one and never
// write with it. This logger holds the parent and the bindings and makes that same child on its
// first line: what it writes is exactly what the child would have written, request id included
// (docs/performance.md#the-http-request-path).
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

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

/** Fastify's `childLoggerFactory`: a RequestLogger in place of an eager pino child. */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new RequestLogger(logger, bindings, options);

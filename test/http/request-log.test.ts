// request.log makes the request's pino child only when the request logs, and then writes exactly
// what fastify's own per-request child would have written.
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestLogger, serviceLogger } from '../../src/http/request-log.js';
import { logCollector, makeApp } from '../support/app.js';

/** A real pino logger writing to a collector; counts the children made from it. */
function countingLogger(level = 'info') {
  const log = logCollector();
  const parent = pino({ level, base: undefined, timestamp: false }, log);
  let children = 0;
  const child = parent.child.bind(parent);
  parent.child = ((bindings, options) => {
    children += 1;
    return child(bindings, options);
  }) as typeof parent.child;
  return { log, parent, made: () => children };
}

describe('RequestLogger', () => {
  it('makes no child until something is logged, then one, reused', () => {
    const { log, parent, made } = countingLogger();
    const logger = new RequestLogger(parent, { reqId: 'req-1' });
    expect(logger.level).toBe('info');
    expect(made()).toBe(0);
    logger.error({ err: new Error('boom') }, 'request failed');
    logger.warn('second');
    logger.debug('below the level: written nowhere');
    expect(made()).toBe(1);
    expect(log.lines.map(({ level, msg, reqId }) => ({ level, msg, reqId }))).toEqual([
      { level: 50, msg: 'request failed', reqId: 'req-1' },
      { level: 40, msg: 'second', reqId: 'req-1' },
    ]);
  });

  it('writes exactly the lines of the eager pino child it stands for', () => {
    const lazy = countingLogger('trace');
    const eager = countingLogger('trace');
    const logger = new RequestLogger(lazy.parent, { reqId: 'req-7' });
    const child = eager.parent.child({ reqId: 'req-7' });
    const error = new TypeError('no');
    for (const target of [logger, child]) {
      target.fatal('fatal %s', 'line');
      target.error({ err: error }, 'with an error');
      target.warn({ deprecation: '1d20adv' }, 'deprecated');
      target.info('info');
      target.debug({ a: 1 });
      target.trace('trace');
      target.child({ sub: true }).info('from a grandchild');
    }
    expect(lazy.log.lines).toHaveLength(7);
    expect(lazy.log.lines).toEqual(eager.log.lines);
  });

  it('takes the route log level of its options', () => {
    const { log, parent } = countingLogger();
    const logger = new RequestLogger(parent, { reqId: 'req-2' }, { level: 'error' });
    expect(logger.level).toBe('error');
    logger.warn('not written');
    logger.error('written');
    expect(log.lines.map((line) => line.msg)).toEqual(['written']);
  });
});

describe('serviceLogger', () => {
  it("writes the lines fastify's own pino logger wrote, errors serialized alike", async () => {
    const ours = logCollector();
    const theirs = logCollector();
    const fastify = Fastify({ logger: { level: 'debug', stream: theirs } });
    const error = Object.assign(new RangeError('out of range'), { code: 'E_RANGE' });
    for (const log of [serviceLogger('debug', ours), fastify.log]) {
      log.child({ reqId: 'req-9' }).error({ err: error }, 'request failed');
      log.warn({ dir: '/nowhere' }, 'a warning');
      log.info('Server listening at http://127.0.0.1:1');
      log.trace('below the level');
    }
    await fastify.close();
    const stable = (lines: typeof ours.lines) => lines.map(({ time: _time, ...line }) => line);
    expect(ours.lines).toHaveLength(3);
    expect(ours.lines[0]?.err).toMatchObject({
      type: 'RangeError',
      message: 'out of range',
      code: 'E_RANGE',
    });
    expect(stable(ours.lines)).toEqual(stable(theirs.lines));
  });
});

describe('request.log in the app', () => {
  it('writes nothing for a request that logs nothing, even at trace level, and the request id when one logs', async () => {
    const log = logCollector();
    const app = await makeApp({ logLevel: 'trace' }, { logStream: log });
    try {
      const before = log.lines.length;
      expect((await app.inject({ url: '/v1/roll?formula=1d6' })).statusCode).toBe(200);
      expect(log.lines.length).toBe(before);
      // A deprecated form logs one warning through request.log.
      expect((await app.inject({ url: '/v1/roll?formula=1d20adv' })).statusCode).toBe(200);
      const lines = log.lines.slice(before);
      expect(lines).toHaveLength(1);
      expect(lines[0]?.level).toBe(40);
      expect(lines[0]?.reqId).toMatch(/^req-/);
    } finally {
      await app.close();
    }
  });
});

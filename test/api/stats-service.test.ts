import { afterAll, describe, expect, it } from 'vitest';
import { StatsService } from '../../src/api/stats-service.js';
import { distribution } from '../../src/stats/distribution.js';
import { HELD_WORKER, heldComputations } from '../support/stats.js';

// The pool runs dist/api/stats-worker.js (npm test builds first).
const service = new StatsService({ threads: 1 });
afterAll(() => service.close());

describe('StatsService', () => {
  it('computes in a worker thread exactly what distribution() computes', async () => {
    const answer = await service.distribution({ formula: '5d10!kh3+2' });
    expect(answer).toEqual(distribution({ formula: '5d10!kh3+2' }));
  });

  it('answers JSON text checked in the worker, the same as distribution()', async () => {
    const json = await service.json({ formula: '4d6kh3' });
    expect(JSON.parse(json)).toEqual(distribution({ formula: '4d6kh3' }));
  });

  it('remembers answers by the normalised request, and shares a computation in flight', async () => {
    const first = service.json({ formula: ' 3d8r1 fire', tags: ['ice', 'fire'] });
    const second = service.json({ formula: '3d8r1 fire', tags: ['fire', 'ice', 'fire'] });
    expect(second).toBe(first);
    const answer = await first;
    // The very same string: from the cache, not computed again.
    const again = service.json({ formula: '3d8r1 fire', tags: ['fire', 'ice'] });
    expect(await again).toBe(answer);
    // Other tags are another request (the same answer, computed again).
    const other = service.json({ formula: '3d8r1 fire', tags: ['fire'] });
    expect(other).not.toBe(first);
    expect(await other).toBe(answer);
  });

  it('keeps the event loop free while it computes', async () => {
    let done = false;
    const work = service.distribution({ formula: '6d10!kl3' }).then(() => {
      done = true;
    });
    let turns = 0;
    while (!done && turns < 1_000_000) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    await work;
    expect(turns).toBeGreaterThan(10);
  });

  it('refuses before any work: the roll rules and the budget', () => {
    expect(() => service.json({ formula: '2d6+' })).toThrow(
      expect.objectContaining({ code: 'invalid_formula' }),
    );
    expect(() => service.json({ formula: '1000d6!kh500' })).toThrow(
      expect.objectContaining({ code: 'too_complex' }),
    );
  });

  it('a computation over the time limit is too_complex, and the pool goes on', async () => {
    const hurried = new StatsService({ threads: 1, timeoutMs: 1 });
    try {
      await expect(hurried.distribution({ formula: '10d10!kh5' })).rejects.toMatchObject({
        code: 'too_complex',
      });
    } finally {
      await hurried.close();
    }
    expect((await service.distribution({ formula: '2d6' })).denominator).toBe('36');
  });

  it('an ETag per version and normalised request', () => {
    const etag = service.etag({ formula: '4d6kh3' });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(service.etag({ formula: ' 4d6kh3 ', advantage: 'normal' })).toBe(etag);
    expect(service.etag({ formula: '4d6kh3', depth: 3 })).not.toBe(etag);
    expect(service.etag({ formula: '4d6kl3' })).not.toBe(etag);
  });
});

describe('a full queue', () => {
  it('refuses past queueMax waiting computations with StatsBusyError (503 unavailable)', async () => {
    const { StatsBusyError } = await import('../../src/errors.js');
    const small = new StatsService({ threads: 1, queueMax: 1 });
    try {
      const settled = await Promise.allSettled(
        [20, 21, 22, 23, 24, 25].map((depth) => small.json({ formula: '6d10!kl3', depth })),
      );
      const refused = settled.filter((s) => s.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StatsBusyError);
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable', status: 503 });
      }
      expect(settled.some((s) => s.status === 'fulfilled')).toBe(true);
    } finally {
      await small.close();
    }
  }, 30_000);
});

/** A computation that keeps the one worker busy far longer than 300 ms (about 3 s of CPU). */
const LONG = { formula: '12d8!kl6' };

describe('the time limit counts only the computation', () => {
  it('a cheap computation queued behind a long one is answered, though the long one was stopped at the limit', async () => {
    // Each computation may take 300 ms once its worker starts it (the long one always needs more);
    // the queue wait is long enough for any start of a thread, however loaded the machine.
    const hurried = new StatsService({ threads: 1, timeoutMs: 300, queueWaitMs: 120_000 });
    try {
      const long = hurried.json(LONG);
      const cheap = hurried.json({ formula: '3d6+7' });
      // The long one is stopped at its own limit, and says so...
      await expect(long).rejects.toMatchObject({
        code: 'too_complex',
        message: expect.stringMatching(/longer than the limit of 0\.3 s of computation \(estimated at about/),
      });
      // ...while the cheap one, which waited longer than 300 ms for the worker, is computed.
      expect(JSON.parse(await cheap)).toEqual(distribution({ formula: '3d6+7' }));
    } finally {
      await hurried.close();
    }
  }, 30_000);

  it('a computation that waited longer than the queue wait for a worker is 503 unavailable, never too_complex', async () => {
    const { StatsBusyError } = await import('../../src/errors.js');
    // The computation under way is held in its worker until the test releases it, so the one
    // behind it waits past the queue wait however fast or loaded the machine; the time limit is
    // far away, so only the queue wait can end anything here.
    const held = heldComputations();
    const waiting = new StatsService({
      threads: 1,
      queueWaitMs: 1_000,
      timeoutMs: 600_000,
      workerFile: HELD_WORKER,
    });
    try {
      // The thread started (its start may take longer than the wait), so that the held one is
      // under way at once.
      for (let tries = 0; tries < 50; tries++) {
        if (
          await waiting.json({ formula: '1d6' }).then(
            () => true,
            () => false,
          )
        )
          break;
      }
      const long = waiting.json({ formula: '2d6', tags: ['hold'] });
      await held.holding();
      const refused = await waiting.json({ formula: '3d6!+7' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StatsBusyError);
      expect(refused).toMatchObject({ code: 'unavailable', status: 503, retryAfterSeconds: 1 });
      expect((refused as Error).message).toMatch(/stayed busy for as long as a computation may wait/);
      // The held one, under way longer than the queue wait, is not cut short by it.
      held.release();
      expect(JSON.parse(await long)).toEqual(distribution({ formula: '2d6', tags: ['hold'] }));
      // Nothing was cached for the refused one: asked again, it is computed.
      expect(JSON.parse(await waiting.json({ formula: '3d6!+7' })).formula).toBe('3d6!+7');
    } finally {
      held.close();
      await waiting.close();
    }
  }, 30_000);
});

describe('the meter of an address', () => {
  /** A meter that records what the service asks of it. */
  const recording = () => {
    const calls: string[] = [];
    return {
      calls,
      meter: {
        admit: () => {
          calls.push('admit');
          return Promise.resolve();
        },
        settle: (ms: number) => {
          calls.push(`settle ${ms > 0 ? 'positive' : ms}`);
        },
        served: () => {
          calls.push('served');
        },
      },
    };
  };

  it('admits and charges a computation with the time it took, and a cached answer costs nothing', async () => {
    const { calls, meter } = recording();
    await service.json({ formula: '5d6!kh2' }, meter);
    expect(calls).toEqual(['admit', 'settle positive']);
    await service.json({ formula: '5d6!kh2' }, meter);
    expect(calls).toEqual(['admit', 'settle positive', 'served']);
  });

  it('a refusal before any work admits nothing and charges nothing', () => {
    const { calls, meter } = recording();
    expect(() => service.json({ formula: '1000d20' }, meter)).toThrow(
      expect.objectContaining({ code: 'too_complex' }),
    );
    expect(calls).toEqual([]);
  });

  it('a computation stopped at the time limit is charged about that limit', async () => {
    // The queue wait is long enough for any start of the thread: only the time limit ends it.
    const hurried = new StatsService({ threads: 1, timeoutMs: 100, queueWaitMs: 120_000 });
    let charged = -1;
    try {
      await expect(
        hurried.json(LONG, {
          admit: () => Promise.resolve(),
          settle: (ms) => {
            charged = ms;
          },
          served: () => {},
        }),
      ).rejects.toMatchObject({ code: 'too_complex' });
    } finally {
      await hurried.close();
    }
    expect(charged).toBeGreaterThanOrEqual(99);
  }, 30_000);
});

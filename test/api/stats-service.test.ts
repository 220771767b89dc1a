import { afterAll, describe, expect, it } from 'vitest';
import { StatsService } from '../../src/api/stats-service.js';
import { distribution } from '../../src/stats/distribution.js';

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

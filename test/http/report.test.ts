// How lucky the night was (docs/trust.md#how-lucky-the-night-was) over REST and tRPC, on the real
// SQLite store: 1d6 and 1d2 tables whose totals the test chooses, so every mid-P is a fraction
// checked by hand (1 on a d6 is 1/12, 4 is 7/12, 6 is 11/12; 1 on a d2 is 1/4), the z-test and
// its p-value recomputed here independently, biased dice, refused formulas, sealed rolls, a table
// longer than the report reads, grouping by roller, and the answer against its schema.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TableReportSchema } from '@fairdice/client/schemas';
import type { TableReport } from '@fairdice/client/types';
import { verifyChain, verifyHead } from '@fairdice/client/verify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/limits.js';
import { roll } from '../../src/roll/roll.js';
import type { Jwks } from '../../src/trust/receipt.js';
import { expectError, makeApp, twoAppsOnOneRedis } from '../support/app.js';
import { describeWithRedis } from '../support/redis.js';
import { appendReveal, appendSealed, newTable, queuedSource, rollAt } from '../support/report-tables.js';
import { scripted } from '../support/sources.js';

/** Var(mid-P) of one fair die of `sides` sides: (1 − sides/sides³)/12, by hand. */
const dieVariance = (sides: number) => (1 - 1 / sides ** 2) / 12;

/** The standard normal's two-sided tail beyond |z|, by Simpson's rule on its density (not erfc). */
function twoSidedP(z: number): number {
  const a = 0;
  const b = Math.abs(z);
  const n = 20_000;
  const h = (b - a) / n;
  const f = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let sum = f(a) + f(b);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return 1 - 2 * ((sum * h) / 3);
}

async function report(app: FastifyInstance, table: string): Promise<TableReport> {
  const response = await app.inject({ url: `/v1/tables/${table}/report` });
  expect(response.statusCode, response.body).toBe(200);
  return TableReportSchema.parse(response.json());
}

describe('GET /v1/tables/{id}/report', () => {
  let app: FastifyInstance;
  const source = queuedSource();
  let jwks: Jwks;
  beforeAll(async () => {
    app = await makeApp({ dataDir: mkdtempSync(join(tmpdir(), 'fairdice-report-')) }, { random: source });
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  it('rates each roll by its exact mid-P, groups by roller, and tests fair dice', async () => {
    const table = await newTable(app);
    await rollAt(app, source, table, '1d6', [1], { by: 'Ana' });
    await rollAt(app, source, table, '1d6', [4], { by: 'Bo' });
    await rollAt(app, source, table, '1d6', [6], { by: 'Ana' });
    await rollAt(app, source, table, '1d2', [1]);
    const body = await report(app, table);
    expect(body.table).toBe(table);
    expect(body.covered).toEqual({ from: 1, to: 4, rolls: 4, rated: 4, sealed: 0, notRated: 0 });
    expect(body.rolls.map((r) => [r.seq, r.formula, r.by, r.status, r.total, r.midPExact])).toEqual([
      [1, '1d6', 'Ana', 'rated', 1, '1/12'],
      [2, '1d6', 'Bo', 'rated', 4, '7/12'],
      [3, '1d6', 'Ana', 'rated', 6, '11/12'],
      [4, '1d2', undefined, 'rated', 1, '1/4'],
    ]);
    expect(body.rolls.map((r) => r.midP)).toEqual([1 / 12, 7 / 12, 11 / 12, 1 / 4]);
    expect(body.byRoller).toEqual([
      { by: 'Ana', rated: 2, meanMidP: (1 / 12 + 11 / 12) / 2 },
      { by: 'Bo', rated: 1, meanMidP: 7 / 12 },
      { by: null, rated: 1, meanMidP: 1 / 4 },
    ]);
    const us = [1 / 12, 7 / 12, 11 / 12, 1 / 4];
    expect(body.overall.rated).toBe(4);
    expect(body.overall.meanMidP).toBeCloseTo(us.reduce((a, b) => a + b) / 4, 15);
    const z = (us.reduce((a, b) => a + b) - 2) / Math.sqrt(3 * dieVariance(6) + dieVariance(2));
    expect(body.test.name).toBe('mid-P z-test');
    expect(body.test.z).toBeCloseTo(z, 12);
    expect(body.test.pValue).toBeCloseTo(twoSidedP(z), 10);
    expect(body.test.verdict).toBe('consistent');
    expect(body.test.sentence).toBe(
      `Consistent with fair dice: 4 rated rolls averaged the 46th percentile (mid-P z-test, z = ${z.toFixed(2)}, p = ${Number(twoSidedP(z).toPrecision(2))}).`,
    );
    // The head is the signed head of the log read, and the log checks against it.
    expect(body.head.entries).toBe(4);
    expect(await verifyHead(body.head, jwks)).toMatchObject({ valid: true });
    const log = (await app.inject({ url: `/v1/tables/${table}/rolls` })).json() as { rolls: unknown[] };
    expect(await verifyChain(log.rolls, jwks, body.head)).toMatchObject({ valid: true, entries: 4 });
  });

  it('rates a roll under its own request: advantage and bonuses included', async () => {
    const table = await newTable(app);
    // 2d20 kept highest is 20 on the faces 3 and 20: P(X < 20) = 19²/400, P(X = 20) = 39/400.
    await rollAt(app, source, table, '1d20', [3, 20], { advantage: 'advantage' });
    // 1d4 + 1: the total 5 is the top of 2..5.
    await rollAt(app, source, table, '1d4', [4], { bonuses: [1] });
    const body = await report(app, table);
    expect(body.rolls.map((r) => [r.total, r.midPExact])).toEqual([
      [20, '761/800'],
      [5, '7/8'],
    ]);
  });

  it('calls three sixes in a row unusual, and twenty very unusual', async () => {
    const three = await newTable(app);
    for (let i = 0; i < 3; i++) await rollAt(app, source, three, '1d6', [6]);
    const unusual = await report(app, three);
    const z3 = (3 * (11 / 12) - 1.5) / Math.sqrt(3 * dieVariance(6));
    expect(unusual.test.z).toBeCloseTo(z3, 12);
    expect(unusual.test.pValue).toBeCloseTo(twoSidedP(z3), 10);
    expect(unusual.test.pValue).toBeLessThan(0.05);
    expect(unusual.test.verdict).toBe('unusual');
    expect(unusual.test.sentence).toBe(
      `Unusual for fair dice: 3 rated rolls averaged the 92nd percentile, above average; fair dice stray this far from average, above or below, about once in ${Math.round(1 / twoSidedP(z3))} nights of as many rolls (mid-P z-test, z = ${z3.toFixed(2)}, p = ${Number(twoSidedP(z3).toPrecision(2))}). Unusual is no proof: among many nights, some are this far off.`,
    );

    const twenty = await newTable(app);
    for (let i = 0; i < 20; i++) await rollAt(app, source, twenty, '1d6', [6]);
    const very = await report(app, twenty);
    expect(very.test.verdict).toBe('very_unusual');
    expect(very.test.pValue).toBeLessThan(0.001);
    expect(very.test.sentence).toMatch(/^Very unusual for fair dice: .* p < 0\.0001\)/);

    const low = await newTable(app);
    for (let i = 0; i < 3; i++) await rollAt(app, source, low, '1d6', [1]);
    const lowReport = await report(app, low);
    expect(lowReport.test.z).toBeCloseTo(-z3, 12);
    expect(lowReport.test.sentence).toMatch(
      /^Unusual for fair dice: 3 rated rolls averaged the 8th percentile, below average; /,
    );
  });

  it('leaves a formula the exact engine refuses not rated, with the reason', async () => {
    const table = await newTable(app);
    await rollAt(app, source, table, '1d6', [2]);
    // 1000d20 rolls, but its exact distribution costs more than the budget (too_complex).
    await rollAt(app, source, table, '1000d20', []);
    // Four exploding d6 (all 1s: 4): every chain to the cap of 100 has counts too large to list.
    await rollAt(app, source, table, '4d6!', []);
    // One exploding d6 is rated over every chain to that cap: P(X < 3) + P(X = 3)/2 = 2/6 + 1/12.
    await rollAt(app, source, table, '1d6!', [3]);
    const body = await report(app, table);
    expect(body.covered).toMatchObject({ rolls: 4, rated: 2, notRated: 2 });
    expect(body.rolls[1]).toMatchObject({ status: 'not_rated', total: 1000, formula: '1000d20' });
    expect(body.rolls[1]!.reason).toMatch(/units of work/);
    expect(body.rolls[1]).not.toHaveProperty('midP');
    expect(body.rolls[2]).toMatchObject({ status: 'not_rated', total: 4 });
    expect(body.rolls[2]!.reason).toMatch(/too large to list with its counts/);
    expect(body.rolls[3]).toMatchObject({ status: 'rated', total: 3, midPExact: '5/12' });
    expect(body.overall.rated).toBe(2);
    expect(body.rolls[0]!.midPExact).toBe('1/4');
  });

  it('shows an unrevealed sealed roll as sealed, and rates a revealed one at its sealed entry', async () => {
    const table = await newTable(app);
    await rollAt(app, source, table, '1d6', [3], { by: 'Ana' });
    const hidden = await appendSealed(
      app.trust,
      table,
      { formula: '1d6', by: 'GM', note: 'ambush' },
      roll({ formula: '1d6' }, { random: scripted([5]) }),
    );
    const shown = await appendSealed(
      app.trust,
      table,
      { formula: '1d2', by: 'GM' },
      roll({ formula: '1d2' }, { random: scripted([2]) }),
    );
    const revealSeq = await appendReveal(app.trust, table, shown);
    const log = await app.trust.store.rolls(table, 0, 10, Date.now());
    // The entries are what the service's own verifier accepts.
    expect(await verifyChain(log!, jwks)).toMatchObject({
      valid: true,
      entries: 4,
      sealed: 2,
      revealed: 1,
    });
    const body = await report(app, table);
    expect(body.covered).toEqual({ from: 1, to: 4, rolls: 3, rated: 2, sealed: 1, notRated: 0 });
    expect(body.rolls).toHaveLength(3);
    expect(body.rolls[1]).toEqual({
      seq: hidden.seq,
      time: body.rolls[1]!.time,
      formula: '1d6',
      by: 'GM',
      status: 'sealed',
    });
    expect(body.rolls[2]).toMatchObject({
      seq: shown.seq,
      status: 'rated',
      total: 2,
      midPExact: '3/4',
      revealedIn: revealSeq,
    });
    expect(body.byRoller).toEqual([
      { by: 'Ana', rated: 1, meanMidP: 5 / 12 },
      { by: 'GM', rated: 1, meanMidP: 3 / 4 },
    ]);
  });

  it(`reads only the last ${LIMITS.tableReportEntries} entries of a longer table, and says so`, async () => {
    const table = await newTable(app);
    const total = LIMITS.tableReportEntries + 5;
    const face = roll({ formula: '1d6' }, { random: scripted([6]) });
    for (let i = 0; i < total; i++) await app.trust.signAtTable(table, { formula: '1d6' }, face);
    const body = await report(app, table);
    expect(body.covered).toEqual({
      from: 6,
      to: total,
      rolls: LIMITS.tableReportEntries,
      rated: LIMITS.tableReportEntries,
      sealed: 0,
      notRated: 0,
    });
    expect(body.rolls[0]!.seq).toBe(6);
    expect(body.rolls.at(-1)!.seq).toBe(total);
    expect(body.head.entries).toBe(total);
  });

  it('answers an empty table untested, and an unknown one 404', async () => {
    const table = await newTable(app);
    const body = await report(app, table);
    expect(body.covered).toEqual({ from: 1, to: 0, rolls: 0, rated: 0, sealed: 0, notRated: 0 });
    expect(body.test).toEqual({
      name: 'mid-P z-test',
      z: null,
      pValue: null,
      verdict: 'untested',
      sentence: 'Not tested: no roll was rated.',
    });
    expect(body.overall).toEqual({ rated: 0, meanMidP: null });
    expectError(await app.inject({ url: '/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/report' }), 404, 'not_found');
    expectError(await app.inject({ url: '/v1/tables/x/report' }), 400, 'invalid_request');
  });

  it('calls a table of certain rolls untested', async () => {
    const table = await newTable(app);
    await rollAt(app, source, table, '1d1', [1]);
    const body = await report(app, table);
    expect(body.rolls[0]).toMatchObject({ status: 'rated', midPExact: '1/2' });
    expect(body.test.verdict).toBe('untested');
    expect(body.test.sentence).toBe('Not tested: no rated roll could have come out otherwise.');
  });

  it('answers the same over tRPC', async () => {
    const table = await newTable(app);
    await rollAt(app, source, table, '1d6', [4]);
    const input = encodeURIComponent(JSON.stringify({ id: table }));
    const response = await app.inject({ url: `/trpc/tableReport?input=${input}` });
    expect(response.statusCode, response.body).toBe(200);
    const body = TableReportSchema.parse((response.json() as { result: { data: unknown } }).result.data);
    expect(body.rolls[0]).toMatchObject({ status: 'rated', total: 4, midPExact: '7/12' });
    const rest = await report(app, table);
    expect({ ...body, head: undefined }).toEqual({ ...rest, head: undefined });
  });
});

describe('the report and the stats budget', () => {
  it('charges the distributions to the caller, and a spent budget is 429', async () => {
    const source = queuedSource();
    const app = await makeApp(
      { dataDir: mkdtempSync(join(tmpdir(), 'fairdice-report-')), statsBurstMs: 1, statsMsPerSecond: 0.001 },
      { random: source },
    );
    try {
      const table = await newTable(app);
      for (const sides of [4, 6, 8, 10, 12, 20, 30, 100])
        await rollAt(app, source, table, `3d${sides}`, [1, 1, 1]);
      const first = await app.inject({ url: `/v1/tables/${table}/report` });
      // Each distinct formula is computed once, from one bucket of 1 ms: spent before the eighth.
      expectError(first, 429, 'rate_limited');
      expect(first.headers['x-ratelimit-stats-remaining']).toBeDefined();
    } finally {
      await app.close();
    }
  });
});

describe('the report survives a restart on SQLite', () => {
  it('reads the same rolls and rates them the same after the process reopens its data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairdice-report-'));
    const source = queuedSource();
    const first = await makeApp({ dataDir }, { random: source });
    let table: string;
    let before: TableReport;
    try {
      table = await newTable(first);
      await rollAt(first, source, table, '1d6', [2], { by: 'Ana' });
      const sealed = await appendSealed(
        first.trust,
        table,
        { formula: '1d2' },
        roll({ formula: '1d2' }, { random: scripted([1]) }),
      );
      await appendReveal(first.trust, table, sealed);
      before = await report(first, table);
    } finally {
      await first.close();
    }
    const second = await makeApp({ dataDir });
    try {
      const after = await report(second, table);
      expect(after.rolls).toEqual(before.rolls);
      expect(after.rolls.map((r) => [r.status, r.midPExact, r.revealedIn])).toEqual([
        ['rated', '1/4', undefined],
        ['rated', '1/4', 3],
      ]);
      expect(after.head.lastHash).toBe(before.head.lastHash);
    } finally {
      await second.close();
    }
  });
});

describeWithRedis('the report on two instances sharing Redis', (executable) => {
  const source = queuedSource();
  const apps = twoAppsOnOneRedis(
    executable,
    { dataDir: mkdtempSync(join(tmpdir(), 'fairdice-report-')) },
    { random: source },
  );
  let a: FastifyInstance;
  let b: FastifyInstance;
  beforeAll(() => {
    ({ a, b } = apps);
  });

  it('rates on one instance the rolls and reveals made on the other', async () => {
    const table = await newTable(a);
    await rollAt(a, source, table, '1d6', [6], { by: 'Ana' });
    await rollAt(b, source, table, '1d6', [1], { by: 'Bo' });
    const sealed = await appendSealed(
      a.trust,
      table,
      { formula: '1d6', by: 'GM' },
      roll({ formula: '1d6' }, { random: scripted([4]) }),
    );
    const fromA = await report(a, table);
    expect(fromA.rolls.map((r) => r.status)).toEqual(['rated', 'rated', 'sealed']);
    await appendReveal(b.trust, table, sealed);
    const fromB = await report(b, table);
    expect(fromB.covered).toEqual({ from: 1, to: 4, rolls: 3, rated: 3, sealed: 0, notRated: 0 });
    expect(fromB.rolls.map((r) => [r.by, r.midPExact, r.revealedIn])).toEqual([
      ['Ana', '11/12', undefined],
      ['Bo', '1/12', undefined],
      ['GM', '7/12', 4],
    ]);
    expect(await report(a, table)).toMatchObject({ rolls: fromB.rolls, covered: fromB.covered });
  });
});

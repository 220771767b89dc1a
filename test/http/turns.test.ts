// Fair turns: once a turn of the event loop has used its budget, an address already served in it
// waits for later turns, in order, while other addresses' requests start at once.
import { describe, expect, it } from 'vitest';
import { fairTurns } from '../../src/http/turns.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('fairTurns', () => {
  it('past the budget, starts one request per address per turn, in arrival order', async () => {
    const takeTurn = fairTurns(0);
    const started: string[] = [];
    for (const name of ['a1', 'a2', 'a3', 'b1']) takeTurn(name[0]!, () => started.push(name));
    expect(started).toEqual(['a1', 'b1']);
    await turn();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    // Another address arriving while `a` still waits is not queued behind it.
    takeTurn('c', () => started.push('c1'));
    expect(started).toEqual(['a1', 'b1', 'a2', 'c1']);
    await turn();
    await turn();
    expect(started).toEqual(['a1', 'b1', 'a2', 'c1', 'a3']);
    // Once idle, an address starts at once again.
    await turn();
    await turn();
    takeTurn('a', () => started.push('a4'));
    expect(started.at(-1)).toBe('a4');
  });

  it('within the budget, starts the cheap requests of an address at once', async () => {
    const takeTurn = fairTurns(60_000);
    const started: string[] = [];
    for (const name of ['a1', 'a2', 'a3']) takeTurn('a', () => started.push(name));
    expect(started).toEqual(['a1', 'a2', 'a3']);
  });

  it('spends the budget of a turn on the queue in rounds, one request per address each round', async () => {
    let now = 0;
    const takeTurn = fairTurns(10, () => now);
    const started: string[] = [];
    // The clock is the test's: each request "costs" 4 ms of the turn: the first round (a1, b1) is always released, the
    // second (a2, b2) starts at 8 ms, under the 10 ms budget; the third waits for the next turn.
    const work = (name: string) => () => {
      started.push(name);
      now += 4;
    };
    takeTurn('a', work('a0'));
    now += 20;
    for (const name of ['a1', 'a2', 'a3']) takeTurn('a', work(name));
    for (const name of ['b1', 'b2', 'b3']) takeTurn('b', work(name));
    expect(started).toEqual(['a0', 'b1']);
    await turn();
    expect(started).toEqual(['a0', 'b1', 'a1', 'b2', 'a2', 'b3']);
    await turn();
    expect(started).toEqual(['a0', 'b1', 'a1', 'b2', 'a2', 'b3', 'a3']);
  });

  it('runs beforeLate before each request that waited for a later turn, and never for one that starts at once', async () => {
    const events: string[] = [];
    const takeTurn = fairTurns(0, undefined, () => events.push('beforeLate'));
    for (const name of ['a1', 'a2', 'b1']) takeTurn(name[0]!, () => events.push(name));
    expect(events).toEqual(['a1', 'b1']);
    await turn();
    expect(events).toEqual(['a1', 'b1', 'beforeLate', 'a2']);
  });

  it('keeps the rule with more addresses than it remembers: each turn the first request of an address starts, its second waits', async () => {
    const takeTurn = fairTurns(0);
    const started: string[] = [];
    const addresses = Array.from({ length: 3000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    for (let round = 0; round < 3; round++) {
      started.length = 0;
      for (const address of addresses) {
        takeTurn(address, () => started.push(`${address} first`));
        takeTurn(address, () => started.push(`${address} second`));
      }
      expect(started).toEqual(addresses.map((address) => `${address} first`));
      await turn();
      expect(started.length).toBe(2 * addresses.length);
      await turn();
    }
  });
});

// Fair turns: one request per address starts in each turn of the event loop; the others wait for
// later turns, in order, while other addresses' requests start at once.
import { describe, expect, it } from 'vitest';
import { fairTurns } from '../../src/http/turns.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('fairTurns', () => {
  it('starts one request per address per turn, in arrival order', async () => {
    const takeTurn = fairTurns();
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
});

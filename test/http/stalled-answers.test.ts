// The connection cap's sweep of stalled answers (src/http/connections.ts), driven with fake
// sockets and fake timers: what it resets, what it spares, and that it stops.
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sweepStalledAnswers } from '../../src/http/connections.js';

/** A socket as the sweep sees it: bytes handed to it, bytes still buffered, and a reset. */
class FakeSocket {
  bytesWritten = 0;
  writableLength = 0;
  destroyed = false;
  resets = 0;
  /** Hands `bytes` to the socket, which cannot send them yet. */
  queue(bytes: number): void {
    this.bytesWritten += bytes;
    this.writableLength += bytes;
  }
  /** `bytes` of the buffered output leave (a write completes). */
  send(bytes: number): void {
    this.writableLength -= bytes;
  }
  resetAndDestroy(): void {
    this.resets++;
    this.destroyed = true;
  }
}

const STALLED_MS = 1_000;
const EVERY_MS = 100;
let live: Set<Socket>;
let stop: () => void;
const add = () => {
  const socket = new FakeSocket();
  live.add(socket as unknown as Socket);
  return socket;
};

beforeEach(() => {
  vi.useFakeTimers();
  live = new Set();
  stop = sweepStalledAnswers(live, STALLED_MS, EVERY_MS);
});
afterEach(() => {
  stop();
  vi.useRealTimers();
});

describe('sweepStalledAnswers', () => {
  it('resets a socket whose output waited the limit with nothing leaving, once', () => {
    const stalled = add();
    stalled.queue(5_000);
    vi.advanceTimersByTime(STALLED_MS);
    expect(stalled.resets).toBe(0);
    vi.advanceTimersByTime(2 * EVERY_MS);
    expect(stalled.resets).toBe(1);
    vi.advanceTimersByTime(10 * EVERY_MS);
    expect(stalled.resets).toBe(1);
  });

  it('starts the wait again whenever a write completes, however long the answer takes in all', () => {
    const slow = add();
    slow.queue(100_000);
    for (let step = 0; step < 30; step++) {
      vi.advanceTimersByTime(STALLED_MS / 2);
      slow.send(1_000);
      // More output queued behind it does not count as leaving.
      slow.queue(500);
    }
    expect(slow.resets).toBe(0);
    vi.advanceTimersByTime(STALLED_MS + 2 * EVERY_MS);
    expect(slow.resets).toBe(1);
  });

  it('counts only what leaves: more output queued behind a stalled answer does not keep it', () => {
    const stalled = add();
    stalled.queue(1_000);
    for (let step = 0; step < 6; step++) {
      vi.advanceTimersByTime(STALLED_MS / 2);
      stalled.queue(500);
    }
    expect(stalled.resets).toBe(1);
  });

  it('counts no wait across a pause of this process, whose completed writes it has not seen yet', () => {
    const reading = add();
    reading.queue(5_000);
    vi.advanceTimersByTime(STALLED_MS / 2);
    // The process does not run for twice the limit (the clock jumps, no timer fires meanwhile);
    // the first sweep after it runs before the writes that completed are seen.
    vi.setSystemTime(Date.now() + 2 * STALLED_MS);
    vi.advanceTimersByTime(EVERY_MS);
    expect(reading.resets).toBe(0);
    // Then nothing leaves for the limit: that is a client that stopped reading.
    vi.advanceTimersByTime(STALLED_MS + 2 * EVERY_MS);
    expect(reading.resets).toBe(1);
  });

  it('still resets a stalled socket when pauses recur: only the paused time is left out', () => {
    const stalled = add();
    stalled.queue(5_000);
    // Each round: 5 sweeps on time, then a pause longer than the limit itself.
    for (let round = 0; round < 4; round++) {
      vi.advanceTimersByTime(5 * EVERY_MS);
      vi.setSystemTime(Date.now() + 2 * STALLED_MS);
      vi.advanceTimersByTime(EVERY_MS);
    }
    expect(stalled.resets).toBe(1);
  });

  it('leaves alone a socket with nothing waiting, however long it is quiet', () => {
    const quiet = add();
    quiet.queue(1_000);
    quiet.send(1_000);
    vi.advanceTimersByTime(20 * STALLED_MS);
    expect(quiet.resets).toBe(0);
  });

  it('forgets a socket that drained, and one that closed', () => {
    const drained = add();
    drained.queue(1_000);
    vi.advanceTimersByTime(STALLED_MS / 2);
    drained.send(1_000);
    vi.advanceTimersByTime(EVERY_MS);
    // Waiting again later: its wait starts now, not when it first waited.
    drained.queue(1_000);
    vi.advanceTimersByTime(STALLED_MS / 2 + EVERY_MS);
    expect(drained.resets).toBe(0);
    const closed = add();
    closed.queue(1_000);
    vi.advanceTimersByTime(EVERY_MS);
    live.delete(closed as unknown as Socket);
    vi.advanceTimersByTime(2 * STALLED_MS);
    expect(closed.resets).toBe(0);
    expect(drained.resets).toBe(1);
  });

  it('stops when told to', () => {
    const stalled = add();
    stalled.queue(1_000);
    stop();
    vi.advanceTimersByTime(5 * STALLED_MS);
    expect(stalled.resets).toBe(0);
  });
});

// Random sources for tests, all here: scripted (exact faces), always-minimum, always-maximum, failing.

import type { RandomSource } from '../../src/index.js';

export interface ScriptedSource extends RandomSource {
  /** Faces not yet used: a test asserts 0 to prove the roll threw exactly the scripted dice. */
  readonly remaining: number;
  /** The sides asked for, call by call. */
  readonly asked: number[];
}

/** Returns the given faces in order; asking for more than scripted is a test failure. */
export function scripted(faces: readonly number[]): ScriptedSource {
  let next = 0;
  const asked: number[] = [];
  return {
    die(sides: number): number {
      asked.push(sides);
      const face = faces[next++];
      if (face === undefined) throw new Error(`scripted source exhausted after ${faces.length} faces`);
      return face;
    },
    get remaining() {
      return faces.length - next;
    },
    asked,
  };
}

/** Counts its calls; returns 1 on every die. */
export const minSource = (): RandomSource & { calls: number } => {
  const source = {
    calls: 0,
    die(_sides: number): number {
      source.calls++;
      return 1;
    },
  };
  return source;
};

/** Counts its calls; returns the maximum face on every die. */
export const maxSource = (): RandomSource & { calls: number } => {
  const source = {
    calls: 0,
    die(sides: number): number {
      source.calls++;
      return sides;
    },
  };
  return source;
};

/** A source that fails the way an exhausted entropy pool would. */
export const failingSource = (): RandomSource => ({
  die() {
    throw new Error('entropy source unavailable: /dev/urandom <closed>');
  },
});

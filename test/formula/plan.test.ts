// The plan's own code (src/formula/plan.ts): the keep rules, and the default of a back end's
// exhaustive switch.

import { describe, expect, it } from 'vitest';
import { KeepRule, unhandledKind } from '../../src/formula/index.js';

describe('the plan', () => {
  it('four distinct keep rules', () => {
    expect(new Set(Object.values(KeepRule)).size).toBe(4);
  });

  it('unhandledKind throws, naming what it was given (reached only by a value the types exclude)', () => {
    expect(() => unhandledKind({ kind: 'sparkle' } as never)).toThrow(TypeError);
    expect(() => unhandledKind({ kind: 'sparkle' } as never)).toThrow(/"kind":"sparkle"/);
  });
});

// The prose of a parse failure (src/formula/messages.ts): expectations named and ordered, the
// character found quoted only when a formula may hold it, numbers with separators.

import { describe, expect, it } from 'vitest';
import type { Expectation } from '../../src/formula/generated/parser.js';
import {
  describeFound,
  excerpt,
  formatInteger,
  joinOr,
  readableExpectations,
} from '../../src/formula/messages.js';

const other = (description: string): Expectation => ({ type: 'other', description }) as Expectation;

describe('readableExpectations', () => {
  it('orders the names most specific first, and drops duplicates and whitespace', () => {
    expect(
      readableExpectations([
        { type: 'end' } as Expectation,
        other('a dice modifier'),
        other('whitespace'),
        other('a dice modifier'),
        other('a number of sides'),
      ]),
    ).toEqual(['a number of sides', 'a dice modifier', 'the end of the formula']);
  });

  it('one name for where a term may start', () => {
    expect(
      readableExpectations([
        other('a number'),
        other('the letter d'),
        other('an opening parenthesis'),
        other('a group ({...})'),
        other('a sign (+ or -)'),
      ]),
    ).toEqual(['a term (dice like 2d6, or a number)', 'a sign (+ or -)']);
  });

  it('a literal outside a named rule is described generically; nothing expected is an empty list', () => {
    expect(readableExpectations([{ type: 'literal', text: '@', ignoreCase: false } as Expectation])).toEqual([
      'another character',
    ]);
    expect(readableExpectations(null)).toEqual([]);
  });
});

describe('joinOr, describeFound, excerpt and formatInteger', () => {
  it('joinOr', () => {
    expect(joinOr([])).toBe('something else');
    expect(joinOr(['a'])).toBe('a');
    expect(joinOr(['a', 'b', 'c'])).toBe('a, b or c');
  });

  it('describeFound quotes what a formula may hold and names or describes anything else', () => {
    expect(describeFound('h', 'formula')).toBe('found "h"');
    expect(describeFound('}', 'formula')).toBe('found "}"');
    expect(describeFound(' ', 'formula')).toBe('found a space');
    expect(describeFound('<', 'bonus')).toBe('found a less-than sign');
    expect(describeFound('"', 'bonus')).toBe('found a character that a bonus cannot contain');
    expect(describeFound('\u0000', 'formula')).toBe('found a character that a formula cannot contain');
    expect(describeFound(null, 'formula')).toBe('the formula ends there');
  });

  it('excerpt keeps 16 characters', () => {
    expect(excerpt('fire')).toBe('fire');
    expect(excerpt('abcdefghijklmnopq')).toBe('abcdefghijklmnop...');
  });

  it('formatInteger separates thousands', () => {
    expect(formatInteger(1_000_000)).toBe('1,000,000');
    expect(formatInteger(-4096)).toBe('-4,096');
    expect(formatInteger(999)).toBe('999');
  });
});

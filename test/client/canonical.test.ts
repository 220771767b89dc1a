// The canonical JSON that receipts are signed, hashed and verified over (packages/client/src/
// canonical.ts) is RFC 8785: held byte for byte to the `canonicalize` package, an independent
// implementation, on real receipts and on every kind of value a receipt may hold.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, UnsignableValueError } from '../../packages/client/src/canonical.js';
import { cryptoRandom, roll } from '../../src/index.js';
import { loadSigningKeys } from '../../src/trust/keys.js';
import { signReceipt } from '../../src/trust/sign.js';

/** Any string RFC 8785 can write: every code point, astral ones as whole surrogate pairs. */
const text = fc.string({ unit: 'binary', maxLength: 12 });

/** A value a receipt may hold: safe integers, strings, booleans, arrays and plain objects. */
const signable = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.maxSafeInteger().filter((n) => !Object.is(n, -0)),
    fc.integer({ min: -1000, max: 1000 }).filter((n) => !Object.is(n, -0)),
    text,
    fc.boolean(),
    tie('array'),
    tie('object'),
    tie('node'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 6, noNullPrototype: true }),
  /** An expression node: a finite `value` beside its exact fraction. */
  node: fc.record(
    {
      type: fc.constant('operation'),
      value: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
      exact: text,
    },
    { noNullPrototype: true },
  ),
}));

describe('canonicalJson', () => {
  it('writes what the canonicalize package writes, for any signable value', () => {
    fc.assert(
      fc.property(signable.value, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes what the canonicalize package writes, for receipts the server signs', async () => {
    const keys = await loadSigningKeys();
    const formulas = [
      '4d6kh3+2',
      '{1d8!, 1d6!}kh1[trait]+floor((2d6+3)/2)',
      '(2*1d6+1)/2',
      '6d10>=8f1',
      '2d6ro1[fire ice]',
      '4dF+d{1,1,2,3,5,8}',
      '6d6mt',
    ];
    for (const formula of formulas) {
      const result = roll({ formula }, { random: cryptoRandom });
      const receipt = signReceipt(keys, { request: { formula, bonuses: [2, '1d4'] }, roll: result });
      expect(canonicalJson(receipt)).toBe(canonicalize(receipt));
    }
  });

  it('refuses what RFC 8785 cannot write the same everywhere, saying where', () => {
    expect(() => canonicalJson({ a: '\ud800' })).toThrow(new UnsignableValueError('$.a'));
    expect(() => canonicalJson({ a: ['x\udc00y'] })).toThrow(new UnsignableValueError('$.a[0]'));
    expect(() => canonicalJson({ '\udbff': 1 })).toThrow(UnsignableValueError);
    expect(() => canonicalJson({ roll: { total: 2.5 } })).toThrow(new UnsignableValueError('$.roll.total'));
    expect(() => canonicalJson({ value: 2.5, exact: 5 })).toThrow(new UnsignableValueError('$.value'));
    expect(() => canonicalJson([-0])).toThrow(new UnsignableValueError('$[0]'));
    expect(() => canonicalJson({ a: Number.MAX_SAFE_INTEGER + 1 })).toThrow(UnsignableValueError);
    expect(() => canonicalJson(Object.create(null))).toThrow(UnsignableValueError);
    expect(() => canonicalJson([undefined])).toThrow(new UnsignableValueError('$[0]'));
    // An undefined property is left out, as JSON.stringify leaves it out.
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });
});

// The one receipt verifier (packages/client/src/verify.ts, WebCrypto only, no dependency), which
// the client ships and the service, `npm run verify` and the page call, against receipts the
// server's signer (node:crypto) makes: every genuine one verifies, and every edit is refused with
// the reason that names it.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../packages/client/src/index.js';
import { loadSigningKeys, type SigningKeys } from '../../src/trust/keys.js';
import type { Receipt } from '../../src/trust/receipt.js';
import { signReceipt } from '../../src/trust/sign.js';

const roll = {
  formula: '(2*1d6+1)/2 fire',
  dice: [
    {
      sides: 6,
      sign: 1 as const,
      results: [4],
      kept: [4],
      keptFlags: [true],
      multiplier: 1,
      total: 4,
      naturalHigh: false,
      naturalLow: false,
      label: 'é',
    },
  ],
  modifier: 0,
  modifiers: [],
  total: 4,
  advantageState: 'normal' as const,
  tag: 'fire',
  expression: {
    type: 'operation' as const,
    operator: '/' as const,
    value: 4.5,
    exact: '9/2',
    operands: [
      {
        type: 'operation' as const,
        operator: '+' as const,
        value: 9,
        operands: [
          {
            type: 'operation' as const,
            operator: '*' as const,
            value: 8,
            operands: [
              { type: 'number' as const, value: 2 },
              { type: 'dice' as const, group: 0, value: 4 },
            ],
          },
          { type: 'number' as const, value: 1 },
        ],
      },
      { type: 'number' as const, value: 2 },
    ],
  },
};

let keys: SigningKeys;
let plain: Receipt;
let atTable: Receipt;
beforeAll(async () => {
  keys = await loadSigningKeys({});
  plain = signReceipt(keys, {
    request: { formula: roll.formula, bonuses: [2, '1d4'], tags: ['fire'] },
    roll,
  });
  atTable = signReceipt(keys, {
    request: { formula: '1d20', advantage: 'advantage' },
    roll: { ...roll, expression: undefined as never },
    table: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s',
    seq: 1,
    prev: '0'.repeat(64),
  });
});

describe('verifyReceipt', () => {
  it('accepts a receipt the server signed, with or without a table, and a fraction in its expression', async () => {
    expect(await verifyReceipt(plain, keys.jwks)).toEqual({ valid: true, kid: keys.kid });
    expect(await verifyReceipt(atTable, keys.jwks)).toEqual({ valid: true, kid: keys.kid });
    // As JSON from the wire, too.
    expect(await verifyReceipt(JSON.parse(JSON.stringify(plain)), keys.jwks)).toEqual({
      valid: true,
      kid: keys.kid,
    });
  });

  it('refuses every edit, saying what failed', async () => {
    const mismatch = 'signature does not match the receipt';
    const notSignable = (path: string) =>
      `malformed receipt: ${path} is not an integer, a string, a boolean, an array or an object`;
    const edited: Array<[unknown, string]> = [
      [{ ...plain, roll: { ...plain.roll, total: 5 } }, mismatch],
      [{ ...plain, roll: { ...plain.roll, expression: { ...roll.expression, value: 4.75 } } }, mismatch],
      [{ ...plain, request: { ...plain.request, tags: ['ice'] } }, mismatch],
      [{ ...plain, time: new Date(0).toISOString() }, mismatch],
      [{ ...plain, kid: 'somebody-else' }, 'no key with kid somebody-else in the key set'],
      [{ ...plain, signature: 'not base64url!' }, 'signature is not base64url'],
      [{ ...plain, signature: 'AAAA' }, 'signature is not 64 bytes long'],
      [{ ...atTable, seq: 2 }, mismatch],
      [{ ...atTable, prev: undefined }, 'malformed receipt: table, seq and prev go together'],
      [{ ...plain, roll: { ...plain.roll, modifier: 0.5 } }, notSignable('$.roll.modifier')],
      [{ ...plain, roll: { ...plain.roll, extra: null } }, notSignable('$.roll.extra')],
      [{ ...plain, roll: { ...plain.roll, label: '\ud800' } }, notSignable('$.roll.label')],
      [{ ...plain, id: undefined }, 'malformed receipt: id is missing or not a string'],
      [{ ...plain, roll: [] }, 'malformed receipt: roll is missing or not an object'],
      ['not a receipt', 'malformed receipt: not a JSON object'],
      [null, 'malformed receipt: not a JSON object'],
    ];
    for (const [receipt, reason] of edited) {
      expect(await verifyReceipt(receipt, keys.jwks)).toEqual({ valid: false, reason });
    }
  });

  it('refuses a key set whose kid is not its key', async () => {
    const [key] = keys.jwks.keys;
    const forged = {
      keys: [{ ...key!, x: keys.jwks.keys[0]!.x.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }],
    };
    expect(await verifyReceipt(plain, forged)).toEqual({
      valid: false,
      reason: `key ${keys.kid} does not match its own thumbprint`,
    });
  });
});

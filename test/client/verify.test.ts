// The client's own receipt verifier (packages/client/src/verify.ts, WebCrypto only, no
// dependency) against receipts the server signs, and against the server's verifier: the two must
// agree on every receipt, genuine or edited.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../packages/client/src/index.js';
import { loadSigningKeys, type SigningKeys } from '../../src/trust/keys.js';
import type { Receipt } from '../../src/trust/receipt.js';
import { signReceipt } from '../../src/trust/sign.js';
import { verifyReceipt as serverVerify } from '../../src/trust/verify.js';

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

describe('verifyReceipt of @fairdice/client', () => {
  it('accepts a receipt the server signed, with or without a table, and a fraction in its expression', async () => {
    expect(await verifyReceipt(plain, keys.jwks)).toEqual({ valid: true, kid: keys.kid });
    expect(await verifyReceipt(atTable, keys.jwks)).toEqual({ valid: true, kid: keys.kid });
    // As JSON from the wire, too.
    expect(await verifyReceipt(JSON.parse(JSON.stringify(plain)), keys.jwks)).toEqual({
      valid: true,
      kid: keys.kid,
    });
  });

  it('refuses any edit, and agrees with the server on every answer', async () => {
    const edited: unknown[] = [
      { ...plain, roll: { ...plain.roll, total: 5 } },
      { ...plain, roll: { ...plain.roll, expression: { ...roll.expression, value: 4.75 } } },
      { ...plain, request: { ...plain.request, tags: ['ice'] } },
      { ...plain, time: new Date(0).toISOString() },
      { ...plain, kid: 'somebody-else' },
      { ...plain, signature: 'not base64url!' },
      { ...plain, signature: 'AAAA' },
      { ...atTable, seq: 2 },
      { ...atTable, prev: undefined },
      { ...plain, roll: { ...plain.roll, modifier: 0.5 } },
      { ...plain, roll: { ...plain.roll, extra: null } },
      'not a receipt',
      null,
    ];
    for (const receipt of [plain, atTable, ...edited]) {
      const ours = await verifyReceipt(receipt, keys.jwks);
      expect(ours).toEqual(await serverVerify(receipt, keys.jwks));
      if (receipt !== plain && receipt !== atTable) expect(ours.valid).toBe(false);
    }
  });

  it('refuses a key set whose kid is not its key', async () => {
    const [key] = keys.jwks.keys;
    const forged = {
      keys: [{ ...key!, x: keys.jwks.keys[0]!.x.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }],
    };
    const result = await verifyReceipt(plain, forged);
    expect(result.valid).toBe(false);
    expect(result).toEqual(await serverVerify(plain, forged));
  });
});

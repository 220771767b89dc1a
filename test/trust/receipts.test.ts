// Receipts end to end without HTTP: signed with node:crypto, verified with WebCrypto only, and
// any edit to any field makes them invalid.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalJson,
  GENESIS_PREV,
  jwkThumbprint,
  receiptHash,
  UnsignableValueError,
  verifyChain,
  verifyReceipt,
} from '@fairdice/client/verify';
import { beforeAll, describe, expect, it } from 'vitest';
import { receiptHashSync } from '../../src/store/chain.js';
import { loadSigningKeys, SigningKeyError, type SigningKeys } from '../../src/trust/keys.js';
import type { Receipt } from '../../src/trust/receipt.js';
import { signReceipt } from '../../src/trust/sign.js';
import { uuidv7, uuidv7Time } from '../../src/trust/uuid.js';

// RFC 8037, appendix A: an Ed25519 key and its RFC 7638 thumbprint.
const RFC8037_KEY = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
} as const;
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';

const dir = mkdtempSync(join(tmpdir(), 'fairdice-keys-'));

function keyFile(name: string, pem: string, mode: number): string {
  const file = join(dir, name);
  writeFileSync(file, pem);
  chmodSync(file, mode);
  return file;
}

const rfcPem = () =>
  createPrivateKey({ key: RFC8037_KEY, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' }) as string;

const roll = {
  formula: '2d20kh1+5',
  dice: [
    {
      sides: 20,
      sign: 1 as const,
      results: [7, 18],
      kept: [18],
      keptFlags: [false, true],
      multiplier: 1,
      total: 18,
      naturalHigh: false,
      naturalLow: false,
    },
  ],
  modifier: 5,
  modifiers: [5],
  total: 23,
  advantageState: 'normal' as const,
};

let keys: SigningKeys;
beforeAll(async () => {
  keys = await loadSigningKeys({ keyFile: keyFile('rfc.pem', rfcPem(), 0o600) });
});

describe('canonical JSON', () => {
  it('sorts keys and writes integers, strings and booleans as RFC 8785 does', () => {
    expect(canonicalJson({ b: [1, true, 'é'], a: { z: -3, y: 'x' } })).toBe(
      '{"a":{"y":"x","z":-3},"b":[1,true,"é"]}',
    );
  });

  it('refuses floats, null and non-plain values, naming where', () => {
    expect(() => canonicalJson({ a: [1, 2.5] })).toThrow(UnsignableValueError);
    expect(() => canonicalJson({ a: [1, 2.5] })).toThrow('$.a[1]');
    expect(() => canonicalJson({ a: null })).toThrow('$.a');
    expect(() => canonicalJson({ a: 2 ** 60 })).toThrow(UnsignableValueError);
    expect(() => canonicalJson(new Date())).toThrow(UnsignableValueError);
  });

  it('takes a non-integer only as the value of an expression node beside its exact fraction', () => {
    expect(canonicalJson({ value: 2.5, exact: '5/2', type: 'operation' })).toBe(
      '{"exact":"5/2","type":"operation","value":2.5}',
    );
    expect(() => canonicalJson({ value: 2.5 })).toThrow('$.value');
    expect(() => canonicalJson({ total: 2.5, exact: '5/2' })).toThrow('$.total');
    expect(() => canonicalJson({ value: Number.NaN, exact: 'x' })).toThrow(UnsignableValueError);
  });
});

describe('UUIDv7', () => {
  it('is a version-7 UUID carrying its millisecond, and sorts in creation order within one millisecond', () => {
    const now = Date.UTC(2026, 10, 23, 20, 0, 0, 123);
    const ids = Array.from({ length: 50 }, () => uuidv7(now));
    expect(new Set(ids).size).toBe(50);
    expect([...ids].sort()).toEqual(ids);
    expect(uuidv7Time(ids[0]!)).toBe(now);
    expect(uuidv7Time('not-a-uuid')).toBeUndefined();
  });
});

describe('keys', () => {
  it('kid is the RFC 7638 thumbprint (RFC 8037 test vector)', async () => {
    expect(await jwkThumbprint(RFC8037_KEY)).toBe(RFC8037_THUMBPRINT);
    expect(keys.kid).toBe(RFC8037_THUMBPRINT);
    expect(keys.jwks.keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: RFC8037_KEY.x,
      kid: RFC8037_THUMBPRINT,
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(JSON.stringify(keys.jwks)).not.toContain(RFC8037_KEY.d);
    expect(keys.generated).toBe(false);
  });

  it('refuses a key file readable by group or others', async () => {
    for (const mode of [0o640, 0o604, 0o644]) {
      const file = keyFile(`open-${mode.toString(8)}.pem`, rfcPem(), mode);
      await expect(loadSigningKeys({ keyFile: file })).rejects.toThrow(/readable by group or others/);
    }
  });

  it('refuses a file that is not an Ed25519 PEM key, and a missing file', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    await expect(loadSigningKeys({ keyFile: keyFile('rsa.pem', rsa as string, 0o600) })).rejects.toThrow(
      /not Ed25519/,
    );
    await expect(loadSigningKeys({ keyFile: keyFile('junk.pem', 'hello', 0o600) })).rejects.toThrow(
      SigningKeyError,
    );
    await expect(loadSigningKeys({ keyFile: join(dir, 'absent.pem') })).rejects.toThrow(/cannot be read/);
  });

  it('generates a key when no file is given, and publishes retired keys after the current one', async () => {
    const retiredFile = join(dir, 'retired.json');
    writeFileSync(retiredFile, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x }] }));
    const fresh = await loadSigningKeys({ retiredKeysFile: retiredFile });
    expect(fresh.generated).toBe(true);
    expect(fresh.kid).not.toBe(RFC8037_THUMBPRINT);
    expect(fresh.jwks.keys.map((key) => key.kid)).toEqual([fresh.kid, RFC8037_THUMBPRINT]);
  });

  it('refuses a retired key whose kid is not its thumbprint', async () => {
    const retiredFile = join(dir, 'retired-bad.json');
    writeFileSync(
      retiredFile,
      JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x, kid: 'mine' }] }),
    );
    await expect(loadSigningKeys({ retiredKeysFile: retiredFile })).rejects.toThrow(/thumbprint/);
  });
});

/** Every leaf of a receipt, as a path and an edited copy with that one leaf changed. */
function tamperings(receipt: Receipt): Array<[string, unknown]> {
  const edits: Array<[string, unknown]> = [];
  const walk = (value: unknown, path: Array<string | number>) => {
    if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value))
        walk(item, [...path, Array.isArray(value) ? Number(key) : key]);
      return;
    }
    const copy = structuredClone(receipt) as unknown as Record<string | number, unknown>;
    let parent = copy;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    const changed =
      typeof value === 'number' ? value + 1 : typeof value === 'boolean' ? !value : flipChar(String(value));
    parent[last] = changed;
    edits.push([path.join('.'), copy]);
  };
  walk(receipt, []);
  return edits;
}

/** One character changed, staying inside base64url and hex alphabets. */
const flipChar = (text: string) => {
  const index = Math.floor(text.length / 2);
  const c = text[index] ?? 'a';
  const swapped = c === 'A' ? 'B' : c === '0' ? '1' : c === 'a' ? 'b' : 'A';
  return text.slice(0, index) + swapped + text.slice(index + 1);
};

describe('verifyReceipt', () => {
  const tableFields = { table: 'tbl_abc', seq: 3, prev: 'ab'.repeat(32) };

  it('accepts a receipt just signed, with WebCrypto only', async () => {
    const receipt = signReceipt(keys, { request: { formula: '2d20kh1+5' }, roll });
    expect(await verifyReceipt(receipt, keys.jwks)).toEqual({ valid: true, kid: RFC8037_THUMBPRINT });
    // It survives a JSON round trip with its keys in another order.
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(receipt).reverse())));
    expect((await verifyReceipt(reordered, keys.jwks)).valid).toBe(true);
  });

  it('rejects a receipt altered in any one field, including the table fields, the key id and the signature', async () => {
    const receipt = signReceipt(keys, {
      request: { formula: '2d20kh1+5', bonuses: [2, '1d4'], tags: ['fire'] },
      roll,
      ...tableFields,
    });
    const edits = tamperings(receipt);
    const paths = edits.map(([path]) => path);
    for (const field of [
      'id',
      'time',
      'kid',
      'signature',
      'table',
      'seq',
      'prev',
      'request.formula',
      'roll.total',
      'roll.dice.0.results.1',
    ]) {
      expect(paths).toContain(field);
    }
    for (const [path, edited] of edits) {
      const result = await verifyReceipt(edited, keys.jwks);
      expect(result.valid, `edit of ${path}`).toBe(false);
    }
  });

  it('rejects added and removed fields, unknown keys, and garbage', async () => {
    const receipt = signReceipt(keys, { request: { formula: '1d6' }, roll });
    expect(await verifyReceipt({ ...receipt, extra: 1 }, keys.jwks)).toMatchObject({ valid: false });
    const { time: _time, ...noTime } = receipt;
    expect(await verifyReceipt(noTime, keys.jwks)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/time/),
    });
    expect(await verifyReceipt(receipt, { keys: [] })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/no key/),
    });
    expect(await verifyReceipt('{}', keys.jwks)).toMatchObject({ valid: false });
    expect(await verifyReceipt({ ...receipt, signature: '%%%' }, keys.jwks)).toMatchObject({ valid: false });
    expect(await verifyReceipt({ ...receipt, table: 't' }, keys.jwks)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/together/),
    });
  });

  it('rejects a key set whose kid is not the thumbprint of its key', async () => {
    const receipt = signReceipt(keys, { request: { formula: '1d6' }, roll });
    const other = await loadSigningKeys();
    const forged = { keys: [{ ...other.jwks.keys[0]!, kid: keys.kid }] };
    expect(await verifyReceipt(receipt, forged)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/thumbprint/),
    });
  });
});

describe('hash chain', () => {
  function chain(length: number): Receipt[] {
    const entries: Receipt[] = [];
    let prev = GENESIS_PREV;
    for (let seq = 1; seq <= length; seq++) {
      const entry = signReceipt(keys, { request: { formula: '1d20' }, roll, table: 'tbl_x', seq, prev });
      entries.push(entry);
      prev = receiptHashSync(entry);
    }
    return entries;
  }

  it('the WebCrypto hash equals the node:crypto hash', async () => {
    const [entry] = chain(1);
    expect(await receiptHash(entry!)).toBe(receiptHashSync(entry!));
  });

  it('accepts an unbroken chain and names the entry where a hidden or reordered one breaks it', async () => {
    const entries = chain(4);
    expect(await verifyChain(entries, keys.jwks)).toEqual({ valid: true, entries: 4 });
    expect(await verifyChain([entries[0], entries[2], entries[3]], keys.jwks)).toMatchObject({
      valid: false,
      seq: 2,
    });
    expect(await verifyChain([entries[1], entries[0]], keys.jwks)).toMatchObject({ valid: false, seq: 1 });
  });
});

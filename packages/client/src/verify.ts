// Receipt verification with WebCrypto only (globalThis.crypto.subtle, Ed25519): the same code runs
// in Node 20+ and in current browsers, so nobody needs to ask the service. The one verifier: the
// client ships it, the service's verifyReceipt operation, `npm run verify` and the page all call
// it. Nothing here may import a node: module (docs/trust.md, "Verifying").
import { canonicalJson } from './canonical.js';
import type { Jwks, Receipt } from './shapes/receipt.js';

export { canonicalJson, UnsignableValueError } from './canonical.js';

/** Whether a receipt verified, and with which key or why not. */
export type VerifyResult = { valid: true; kid: string } | { valid: false; reason: string };

/** Whether a table's log is one unbroken chain, or where and why it breaks. */
export type ChainResult =
  | { valid: true; entries: number }
  | { valid: false; seq: number | undefined; reason: string };

/** The `prev` of a table's first entry: no entry before it. */
export const GENESIS_PREV = '0'.repeat(64);

const B64URL = /^[A-Za-z0-9_-]*$/;

function base64urlDecode(text: string): Uint8Array<ArrayBuffer> {
  if (!B64URL.test(text)) throw new Error('not base64url');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64urlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const subtle = () => globalThis.crypto.subtle;

/** RFC 7638 JWK thumbprint of an Ed25519 public key: SHA-256 of {"crv","kty","x"}, base64url. */
export async function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): Promise<string> {
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  const digest = await subtle().digest('SHA-256', new TextEncoder().encode(members));
  return base64urlEncode(new Uint8Array(digest));
}

/** SHA-256 (lower-case hex) of a receipt's canonical JSON, signature included: the next entry's `prev`. */
export async function receiptHash(receipt: Receipt): Promise<string> {
  const digest = await subtle().digest('SHA-256', new TextEncoder().encode(canonicalJson(receipt)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Why `value` is not shaped like a receipt, or undefined when it is. */
function shapeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  for (const field of ['id', 'time', 'kid', 'signature'] as const) {
    if (typeof value[field] !== 'string') return `${field} is missing or not a string`;
  }
  if (!isObject(value.request)) return 'request is missing or not an object';
  if (!isObject(value.roll)) return 'roll is missing or not an object';
  const atTable = ['table', 'seq', 'prev'].filter((field) => value[field] !== undefined).length;
  if (atTable !== 0 && atTable !== 3) return 'table, seq and prev go together';
  return undefined;
}

/**
 * Whether `receipt` was signed by one of the keys of `jwks` (the service's `jwks` procedure, or
 * /.well-known/jwks.json) and is unchanged since: any edit to any field (a die, the total, the
 * formula, the time, the id, the table fields, the key id, the signature) makes it invalid.
 * Checked here with WebCrypto, without asking the service. Never throws; the reason says what
 * failed.
 */
export async function verifyReceipt(receipt: unknown, jwks: Jwks): Promise<VerifyResult> {
  const problem = shapeProblem(receipt);
  if (problem !== undefined) return { valid: false, reason: `malformed receipt: ${problem}` };
  const { signature, ...body } = receipt as Record<string, unknown> & { signature: string; kid: string };
  const jwk = jwks.keys.find((key) => key.kid === body.kid);
  if (jwk === undefined) return { valid: false, reason: `no key with kid ${body.kid} in the key set` };
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    return { valid: false, reason: `key ${body.kid} is not an Ed25519 public key` };
  // A key set whose kid does not match its key could make a receipt verify under a name it never had.
  if ((await jwkThumbprint(jwk)) !== jwk.kid)
    return { valid: false, reason: `key ${body.kid} does not match its own thumbprint` };
  let signed: string;
  try {
    signed = canonicalJson(body);
  } catch (error) {
    return { valid: false, reason: `malformed receipt: ${(error as Error).message}` };
  }
  let signatureBytes: Uint8Array<ArrayBuffer>;
  try {
    signatureBytes = base64urlDecode(signature);
  } catch {
    return { valid: false, reason: 'signature is not base64url' };
  }
  if (signatureBytes.length !== 64) return { valid: false, reason: 'signature is not 64 bytes long' };
  try {
    const key = await subtle().importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
    const ok = await subtle().verify(
      { name: 'Ed25519' },
      key,
      signatureBytes,
      new TextEncoder().encode(signed),
    );
    return ok
      ? { valid: true, kid: jwk.kid }
      : { valid: false, reason: 'signature does not match the receipt' };
  } catch {
    return { valid: false, reason: `key ${body.kid} could not be used to verify` };
  }
}

/**
 * Whether `entries` (a table's log from sequence 1, in order) is one unbroken chain: every
 * receipt valid, at the same table, numbered 1, 2, 3... and each `prev` the hash of the entry
 * before. A hidden or edited entry breaks it.
 */
export async function verifyChain(entries: readonly unknown[], jwks: Jwks): Promise<ChainResult> {
  let prev = GENESIS_PREV;
  let table: string | undefined;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as Receipt;
    const result = await verifyReceipt(entry, jwks);
    const seq = index + 1;
    if (!result.valid) return { valid: false, seq, reason: result.reason };
    if (entry.table === undefined) return { valid: false, seq, reason: 'not a table entry' };
    table ??= entry.table;
    if (entry.table !== table) return { valid: false, seq, reason: 'entry of another table' };
    if (entry.seq !== seq) return { valid: false, seq, reason: `expected sequence number ${seq}` };
    if (entry.prev !== prev) return { valid: false, seq, reason: 'prev is not the hash of the entry before' };
    prev = await receiptHash(entry);
  }
  return { valid: true, entries: entries.length };
}

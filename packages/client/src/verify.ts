// Receipt verification for front ends, with WebCrypto only (globalThis.crypto.subtle, Ed25519):
// the same code runs in Node 20+ and in current browsers. Self-contained on purpose: the RFC 8785
// canonical JSON of a receipt (integers, strings, booleans, arrays, objects, and the non-integer
// `value` of an expression node beside its `exact`) is a few lines, so the client needs no
// dependency. It is a copy of the server's verifier (src/trust/verify.ts, src/trust/canonical.ts);
// test/client/verify.test.ts checks that the two agree.
import type { Jwks } from './types.js';

/** Whether a receipt verified, and with which key or why not. */
export type VerifyResult = { valid: true; kid: string } | { valid: false; reason: string };

class UnsignableValueError extends Error {
  constructor(path: string) {
    super(`${path} is not an integer, a string, a boolean, an array or an object`);
    this.name = 'UnsignableValueError';
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

/**
 * RFC 8785 canonical JSON of a signable value: safe integers (a finite number only as the `value`
 * of an object with a string `exact`), strings, booleans, arrays and plain objects, keys sorted by
 * UTF-16 code units and undefined properties left out. Throws on anything else.
 */
function canonical(value: unknown, path: string, fractionAllowed = false): string {
  if (typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') {
    if (hasLoneSurrogate(value)) throw new UnsignableValueError(path);
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if ((Number.isSafeInteger(value) && !Object.is(value, -0)) || (fractionAllowed && Number.isFinite(value)))
      return JSON.stringify(value);
    throw new UnsignableValueError(path);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => canonical(item, `${path}[${index}]`)).join(',')}]`;
  }
  if (isPlainObject(value)) {
    const exact = typeof value.exact === 'string';
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const item = value[key];
      if (item === undefined) continue;
      members.push(`${canonical(key, path)}:${canonical(item, `${path}.${key}`, exact && key === 'value')}`);
    }
    return `{${members.join(',')}}`;
  }
  throw new UnsignableValueError(path);
}

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
async function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): Promise<string> {
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  const digest = await subtle().digest('SHA-256', new TextEncoder().encode(members));
  return base64urlEncode(new Uint8Array(digest));
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
 * /.well-known/jwks.json) and is unchanged since: any edit to any field makes it invalid. Checked
 * here with WebCrypto, without asking the service. Never throws; the reason says what failed.
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
    signed = canonical(body, '$');
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

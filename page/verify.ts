// Checks a table's receipts in the page, with WebCrypto only (docs/trust.md, "Verifying"): the
// Ed25519 signature over the RFC 8785 canonical JSON of every field but `signature`, against the
// key named by `kid` in /.well-known/jwks.json, and the chain (`seq` and `prev`) entry by entry.
import type { Jwk, Receipt } from './types.js';

/** RFC 8785 for what a receipt may hold (integers, strings, booleans, arrays, objects). */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error('a receipt holds integers only');
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  throw new Error('a receipt holds no null');
}

function base64urlDecode(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

const keys = new Map<string, Promise<CryptoKey>>();

/** Whether the receipt's signature verifies under its key; a reason when it does not. */
export async function verifySignature(receipt: Receipt, jwks: readonly Jwk[]): Promise<string | undefined> {
  const { signature, ...body } = receipt;
  const jwk = jwks.find((key) => key.kid === body.kid);
  if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519') return `no Ed25519 key ${body.kid}`;
  try {
    let key = keys.get(jwk.kid);
    if (!key) {
      key = crypto.subtle.importKey(
        'jwk',
        { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
        { name: 'Ed25519' },
        false,
        ['verify'],
      );
      keys.set(jwk.kid, key);
    }
    const ok = await crypto.subtle.verify(
      { name: 'Ed25519' },
      await key,
      base64urlDecode(signature),
      new TextEncoder().encode(canonicalJson(body)),
    );
    return ok ? undefined : 'the signature does not match the entry';
  } catch (error) {
    return `could not check: ${(error as Error).message}`;
  }
}

/** SHA-256 (hex) of an entry's canonical JSON, signature included: the next entry's `prev`. */
export async function receiptHash(receipt: Receipt): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(receipt)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export const GENESIS_PREV = '0'.repeat(64);

// Is this request from Discord? Every interaction Discord sends carries `X-Signature-Ed25519`, an
// Ed25519 signature (hex) over `X-Signature-Timestamp` followed by the raw body, made with the
// application's key; the public half is the application's "public key" (64 hex digits). Checked
// here with node:crypto alone, before anything else is done with the request (docs/discord.md).
// The timestamp (Unix seconds) must also be recent: a request recorded and sent again later is
// refused, though its signature is still good.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { LIMITS } from '../limits.js';

export const SIGNATURE_HEADER = 'x-signature-ed25519';
export const TIMESTAMP_HEADER = 'x-signature-timestamp';

const SIGNATURE = /^[0-9a-fA-F]{128}$/;
const TIMESTAMP = /^\d{1,12}$/;

/** The application's public key (64 hex digits: the raw 32 bytes) as a node:crypto key. */
export function discordPublicKey(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('A Discord public key is 64 hexadecimal digits');
  const x = Buffer.from(hex, 'hex').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** The two headers, when both are present and well formed: what the signature check needs. */
export interface SignedHeaders {
  signature: string;
  timestamp: string;
}

/** The headers of a request that may be Discord's, or undefined when one is missing or malformed. */
export function signedHeaders(headers: Readonly<Record<string, unknown>>): SignedHeaders | undefined {
  const signature = headers[SIGNATURE_HEADER];
  const timestamp = headers[TIMESTAMP_HEADER];
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) return undefined;
  if (typeof timestamp !== 'string' || !TIMESTAMP.test(timestamp)) return undefined;
  return { signature, timestamp };
}

/**
 * Whether a signed timestamp is recent at `nowMs`: at most LIMITS.discordTimestampMaxAgeSeconds
 * old, and at most LIMITS.discordTimestampSkewSeconds ahead (the two clocks may differ a little).
 */
export function timestampFresh(timestamp: string, nowMs: number): boolean {
  const age = nowMs / 1000 - Number(timestamp);
  return age <= LIMITS.discordTimestampMaxAgeSeconds && age >= -LIMITS.discordTimestampSkewSeconds;
}

/** Whether `signature` signs `timestamp` + `body` under `key`. Never throws. */
export function signatureValid(
  key: KeyObject,
  { signature, timestamp }: SignedHeaders,
  body: Buffer,
): boolean {
  try {
    return verify(
      null,
      Buffer.concat([Buffer.from(timestamp, 'utf8'), body]),
      key,
      Buffer.from(signature, 'hex'),
    );
  } catch {
    return false;
  }
}

// Signing receipts and table heads (node:crypto, server only): the id, the time and the key id are added, then
// the Ed25519 signature over the RFC 8785 canonical JSON of all of it (docs/trust.md).
import { createHash, sign } from 'node:crypto';
import type { TableHead } from '@fairdice/client/types';
import { canonicalJson } from '@fairdice/client/verify';
import type { SigningKeys } from './keys.js';
import type { Receipt, ReceiptBody } from './receipt.js';
import { uuidv7 } from './uuid.js';

/** What the caller supplies: the receipt without what the signer adds. */
export type UnsignedReceipt = Omit<ReceiptBody, 'id' | 'time' | 'kid'>;

/** The Ed25519 signature (base64url) over the canonical JSON of `body`. */
const signatureOf = (keys: SigningKeys, body: object): string =>
  sign(null, Buffer.from(canonicalJson(body), 'utf8'), keys.privateKey).toString('base64url');

export function signReceipt(keys: SigningKeys, content: UnsignedReceipt, now: number = Date.now()): Receipt {
  const body: ReceiptBody = { id: uuidv7(now), time: new Date(now).toISOString(), kid: keys.kid, ...content };
  return { ...body, signature: signatureOf(keys, body) };
}

/** Signs any other entry of a table's log (a sealed roll, a reveal) as a receipt is signed. */
export function signEntry<T extends object>(
  keys: SigningKeys,
  content: T,
  now: number = Date.now(),
): T & { id: string; time: string; kid: string; signature: string } {
  const body = { id: uuidv7(now), time: new Date(now).toISOString(), kid: keys.kid, ...content };
  return { ...body, signature: signatureOf(keys, body) };
}

/** What a table's head states before it is signed (docs/trust.md#signed-heads). */
export interface HeadContent {
  table: string;
  entries: number;
  lastHash: string;
}

/** Signs a table's head: the time and the key id are added, then the signature, as a receipt's. */
export function signHead(keys: SigningKeys, content: HeadContent, now: number = Date.now()): TableHead {
  const body = { ...content, time: new Date(now).toISOString(), kid: keys.kid };
  return { ...body, signature: signatureOf(keys, body) };
}

/**
 * The commitment of a sealed roll (docs/trust.md#sealed-rolls): SHA-256 of the receipt's canonical
 * JSON (UTF-8), then the salt's 32 bytes. The client's `commitmentOf` computes the same with
 * WebCrypto, asynchronously; this one is synchronous, for the store's atomic append.
 */
export function sealCommitment(receipt: Receipt, salt: string): string {
  return createHash('sha256')
    .update(canonicalJson(receipt), 'utf8')
    .update(Buffer.from(salt, 'hex'))
    .digest('hex');
}

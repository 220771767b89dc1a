// Signing receipts (node:crypto, server only): the id, the time and the key id are added, then
// the Ed25519 signature over the RFC 8785 canonical JSON of all of it (docs/trust.md).
import { sign } from 'node:crypto';
import { canonicalJson } from '@fairdice/client/verify';
import type { SigningKeys } from './keys.js';
import type { Receipt, ReceiptBody } from './receipt.js';
import { uuidv7 } from './uuid.js';

/** What the caller supplies: the receipt without what the signer adds. */
export type UnsignedReceipt = Omit<ReceiptBody, 'id' | 'time' | 'kid'>;

export function signReceipt(keys: SigningKeys, content: UnsignedReceipt, now: number = Date.now()): Receipt {
  const body: ReceiptBody = { id: uuidv7(now), time: new Date(now).toISOString(), kid: keys.kid, ...content };
  const signature = sign(null, Buffer.from(canonicalJson(body), 'utf8'), keys.privateKey).toString(
    'base64url',
  );
  return { ...body, signature };
}

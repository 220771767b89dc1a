// The link between the entries of a table's log: each entry's `prev` is the SHA-256 of the
// canonical JSON of the entry before, signature included (docs/trust.md, "Tables"). The stores
// keep the chain, so they take its hash here, synchronously (node:crypto) inside an append; the
// WebCrypto `receiptHash` of @fairdice/client/verify gives the same hex, and verifyChain checks it.
import { createHash } from 'node:crypto';
import type { TableEntry } from '@fairdice/client/types';
import { canonicalJson } from '@fairdice/client/verify';

export { GENESIS_PREV } from '@fairdice/client/verify';

/** SHA-256 (lower-case hex) of a receipt's canonical JSON, signature included: the next entry's `prev`. */
export function receiptHashSync(receipt: TableEntry): string {
  return createHash('sha256').update(canonicalJson(receipt), 'utf8').digest('hex');
}

// The shape of a receipt, as the signer, the stores and the operations name it. Declared once,
// as the zod schemas of @fairdice/client/schemas (docs/trust.md); the types are theirs.
import type { Receipt } from '@fairdice/client/types';

export type {
  Ed25519Jwk,
  Jwks,
  Receipt,
  RevealEntry,
  SealedEntry,
  SignedRequest,
  TableEntry,
  TableHead,
} from '@fairdice/client/types';

/** Everything a receipt's signature covers: the receipt without its signature. */
export type ReceiptBody = Omit<Receipt, 'signature'>;

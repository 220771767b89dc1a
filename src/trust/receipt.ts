// The shape of a receipt, shared by the signer, the store, the verifier and the typed client.
// Plain data only: everything here is an integer, a string or a boolean (docs/trust.md).
import type { AdvantageState, RollResponse } from '../roll/types.js';

/** What was asked: the roll request as rolled, without the receipt and table switches. */
export interface SignedRequest {
  formula: string;
  advantage?: AdvantageState;
  bonuses?: Array<number | string>;
  tags?: string[];
}

/** Everything a receipt's signature covers. */
export interface ReceiptBody {
  /** UUIDv7: time-ordered, unique. */
  id: string;
  /** When it was signed, RFC 3339 UTC with milliseconds. */
  time: string;
  /** RFC 7638 thumbprint of the public key that verifies it (a `kid` of /.well-known/jwks.json). */
  kid: string;
  request: SignedRequest;
  roll: RollResponse;
  /** At a table only: its id, this entry's sequence number (from 1) and the previous entry's hash. */
  table?: string;
  seq?: number;
  prev?: string;
}

export interface Receipt extends ReceiptBody {
  /** Ed25519 signature (base64url, no padding) over the RFC 8785 canonical JSON of the rest. */
  signature: string;
}

/** The `prev` of a table's first entry: no entry before it. */
export const GENESIS_PREV = '0'.repeat(64);

/** One public key as published in a JWKS. */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg?: 'EdDSA';
  use?: 'sig';
}

export interface Jwks {
  keys: Ed25519Jwk[];
}

// The shape of a receipt (docs/trust.md), declared once: what was asked, the roll, and the
// signature over both, with the key set that verifies it and the service's verdict on one.
import { z } from 'zod';
import { AdvantageStateSchema, ROLL_EXAMPLE, RollSchema } from './roll.js';

/** The fields of what was asked; a sealed entry shows them all but `note` (./tables.ts). */
export const signedRequestFields = {
  formula: z.string(),
  advantage: AdvantageStateSchema.optional(),
  bonuses: z.array(z.union([z.number().int(), z.string()])).optional(),
  tags: z.array(z.string()).optional(),
  by: z
    .string()
    .optional()
    .meta({ description: 'Who rolled, as the roller named themselves (1 to 32 characters).' }),
  note: z
    .string()
    .optional()
    .meta({ description: 'What the roll was for, as the roller wrote it (1 to 200 characters).' }),
  sealed: z.literal(true).optional().meta({
    description:
      'A sealed roll (docs/trust.md#sealed-rolls): this receipt is what its sealed entry commits to, never an entry of the log itself.',
  }),
};

const signedRequest = z.strictObject(signedRequestFields).meta({
  id: 'SignedRequest',
  description:
    'What was asked: the roll request without its switches (receipt, table, idempotencyKey); `by`, `note` and `sealed` only when given.',
});

/** What was asked: the roll request as rolled, without its switches; `by`, `note` and `sealed` only when given. */
export interface SignedRequest extends z.output<typeof signedRequest> {}
export const SignedRequestSchema: z.ZodType<SignedRequest, SignedRequest> = signedRequest;

/** A receipt as the examples of the document show it (also the data of the event stream's example). */
export const receiptExample = {
  id: '019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d',
  time: '2026-11-23T20:00:00.123Z',
  kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
  request: { formula: '4d6kh3+2' },
  roll: ROLL_EXAMPLE,
  signature: 'm9r3...base64url...Q',
} as const;

const receipt = z
  .strictObject({
    id: z.string().meta({ description: 'UUIDv7: unique, ordered by time.' }),
    time: z.string().meta({ description: 'When it was signed (RFC 3339, UTC, milliseconds).' }),
    kid: z
      .string()
      .meta({ description: 'Which key of /.well-known/jwks.json verifies it (RFC 7638 thumbprint).' }),
    request: SignedRequestSchema,
    roll: RollSchema,
    table: z.string().optional().meta({ description: 'At a table: its id.' }),
    seq: z
      .number()
      .int()
      .optional()
      .meta({ description: "At a table: this entry's sequence number, from 1." }),
    prev: z.string().optional().meta({
      description:
        'At a table: SHA-256 (hex) of the canonical JSON of the entry before, 64 zeros for the first.',
    }),
    signature: z.string().meta({
      description: 'Ed25519 signature (base64url) over the RFC 8785 canonical JSON of every other field.',
    }),
  })
  .meta({
    id: 'Receipt',
    description:
      'A signed record of one roll; verifiable offline against /.well-known/jwks.json (docs/trust.md).',
    example: receiptExample,
  });

type ReceiptFields = z.output<typeof receipt>;

/**
 * A signed record of one roll, verifiable offline against the service's keys (`jwks`, or
 * /.well-known/jwks.json) with `verifyReceipt`. An object type, not an interface, so that it can
 * be passed as it is to the `verifyReceipt` procedure (which takes any JSON object); mapped, so
 * that it keeps its name where a compiler writes it out.
 */
export type Receipt = { [K in keyof ReceiptFields]: ReceiptFields[K] };
export const ReceiptSchema: z.ZodType<Receipt, Receipt> = receipt;

const ed25519Jwk = z.strictObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string().meta({ description: 'RFC 7638 thumbprint; receipts name it.' }),
  alg: z.literal('EdDSA').optional(),
  use: z.literal('sig').optional(),
});

/** One public key that verifies receipts. */
export interface Ed25519Jwk extends z.output<typeof ed25519Jwk> {}
export const Ed25519JwkSchema: z.ZodType<Ed25519Jwk, Ed25519Jwk> = ed25519Jwk;

const jwks = z
  .strictObject({
    keys: z.array(Ed25519JwkSchema),
  })
  .meta({
    id: 'Jwks',
    description: 'The public keys that verify receipts: the current one first, then retired ones.',
  });

/** The answer of `jwks` (/.well-known/jwks.json): the current key first, then retired ones. */
export interface Jwks extends z.output<typeof jwks> {}
export const JwksSchema: z.ZodType<Jwks, Jwks> = jwks;

const verifyResult = z
  .strictObject({
    valid: z.boolean(),
    kid: z.string().optional().meta({
      description: "When valid: the key that verified it (a log: its head's key, else its first entry's).",
    }),
    entries: z.number().int().optional().meta({
      description: 'When valid, for a head or a log: the entries the head promises, or the log holds.',
    }),
    reason: z.string().optional().meta({ description: 'When invalid: what failed.' }),
  })
  .meta({
    id: 'VerifyResult',
    description: 'Whether the receipt, the head or the log is genuine and unaltered.',
    example: { valid: false, reason: 'signature does not match the receipt' },
  });

/** The answer of the `verifyReceipt` procedure. */
export interface VerifyResponse extends z.output<typeof verifyResult> {}
export const VerifyResultSchema: z.ZodType<VerifyResponse, VerifyResponse> = verifyResult;

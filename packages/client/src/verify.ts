// Receipt verification with WebCrypto only (globalThis.crypto.subtle, Ed25519): the same code runs
// in Node 20+ and in current browsers, so nobody needs to ask the service. The one verifier: the
// client ships it, the service's verifyReceipt operation, `npm run verify` and the page all call
// it. Nothing here may import a node: module (docs/trust.md, "Verifying").
import { canonicalJson } from './canonical.js';
import type { Jwks, Receipt } from './shapes/receipt.js';
import type { SealedEntry, TableEntry, TableHead } from './shapes/tables.js';

export { canonicalJson, UnsignableValueError } from './canonical.js';

/** Whether a receipt verified, and with which key or why not. */
export type VerifyResult = { valid: true; kid: string } | { valid: false; reason: string };

/**
 * Whether a table's log is one unbroken chain, or where and why it breaks. A valid log holding
 * sealed rolls says how many, and how many of them are revealed.
 */
export type ChainResult =
  | { valid: true; entries: number; sealed?: number; revealed?: number }
  | { valid: false; seq: number | undefined; reason: string };

/** The `prev` of a table's first entry, and the `lastHash` of an empty log's head: no entry before. */
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

const hexOf = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * SHA-256 (lower-case hex) of a log entry's canonical JSON, signature included: the next entry's
 * `prev`, and a head's `lastHash`.
 */
export async function receiptHash(entry: Receipt | TableEntry): Promise<string> {
  return hexOf(await subtle().digest('SHA-256', new TextEncoder().encode(canonicalJson(entry))));
}

const SALT_HEX = /^[0-9a-f]{64}$/;

/**
 * The commitment of a sealed roll (docs/trust.md#sealed-rolls): SHA-256 (lower-case hex) of the
 * UTF-8 bytes of the receipt's RFC 8785 canonical JSON, signature included, followed by the 32
 * bytes of the salt (given as 64 hex characters).
 */
export async function commitmentOf(receipt: Receipt, salt: string): Promise<string> {
  if (!SALT_HEX.test(salt)) throw new Error('the salt is not 64 lower-case hex characters');
  const text = new TextEncoder().encode(canonicalJson(receipt));
  const bytes = new Uint8Array(text.length + 32);
  bytes.set(text);
  for (let i = 0; i < 32; i++) bytes[text.length + i] = Number.parseInt(salt.slice(2 * i, 2 * i + 2), 16);
  return hexOf(await subtle().digest('SHA-256', bytes));
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
 * Whether `body` (with its `kid` and `signature`) was signed by the key of `jwks` it names: the
 * Ed25519 signature over the canonical JSON of every field but `signature`. `what` names it in a
 * reason ("receipt", "head").
 */
async function verifySigned(
  signed: Record<string, unknown> & { signature: string; kid: string },
  jwks: Jwks,
  what: string,
): Promise<VerifyResult> {
  const { signature, ...body } = signed;
  const jwk = jwks.keys.find((key) => key.kid === body.kid);
  if (jwk === undefined) return { valid: false, reason: `no key with kid ${body.kid} in the key set` };
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    return { valid: false, reason: `key ${body.kid} is not an Ed25519 public key` };
  // A key set whose kid does not match its key could make a receipt verify under a name it never had.
  if ((await jwkThumbprint(jwk)) !== jwk.kid)
    return { valid: false, reason: `key ${body.kid} does not match its own thumbprint` };
  let text: string;
  try {
    text = canonicalJson(body);
  } catch (error) {
    return { valid: false, reason: `malformed ${what}: ${(error as Error).message}` };
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
      new TextEncoder().encode(text),
    );
    return ok
      ? { valid: true, kid: jwk.kid }
      : { valid: false, reason: `signature does not match the ${what}` };
  } catch {
    return { valid: false, reason: `key ${body.kid} could not be used to verify` };
  }
}

/**
 * Whether `receipt` was signed by one of the keys of `jwks` (the service's `jwks` procedure, or
 * /.well-known/jwks.json) and is unchanged since: any edit to any field (a die, the total, the
 * formula, who rolled and why, the time, the id, the table fields, the key id, the signature)
 * makes it invalid. Checked here with WebCrypto, without asking the service. Never throws; the
 * reason says what failed.
 */
export async function verifyReceipt(receipt: unknown, jwks: Jwks): Promise<VerifyResult> {
  const problem = shapeProblem(receipt);
  if (problem !== undefined) return { valid: false, reason: `malformed receipt: ${problem}` };
  return verifySigned(
    receipt as Record<string, unknown> & { signature: string; kid: string },
    jwks,
    'receipt',
  );
}

const HASH_HEX = /^[0-9a-f]{64}$/;

/** Why `value` is not shaped like a head, or undefined when it is. */
function headProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  for (const field of ['table', 'time', 'kid', 'signature'] as const) {
    if (typeof value[field] !== 'string') return `${field} is missing or not a string`;
  }
  if (!Number.isSafeInteger(value.entries) || (value.entries as number) < 0)
    return 'entries is missing or not a whole number';
  if (typeof value.lastHash !== 'string' || !HASH_HEX.test(value.lastHash))
    return 'lastHash is missing or not 64 hex characters';
  return undefined;
}

/**
 * Whether `head` (a table's signed head: `table`, `entries`, `lastHash`, `time`) was signed by
 * one of the keys of `jwks` and is unchanged since. Never throws.
 */
export async function verifyHead(head: unknown, jwks: Jwks): Promise<VerifyResult> {
  const problem = headProblem(head);
  if (problem !== undefined) return { valid: false, reason: `malformed head: ${problem}` };
  return verifySigned(head as Record<string, unknown> & { signature: string; kid: string }, jwks, 'head');
}

/** Why `value` is not shaped like a log entry other than a receipt, or undefined when it is. */
function entryProblem(value: Record<string, unknown>): string | undefined {
  for (const field of ['id', 'time', 'kid', 'signature', 'table'] as const) {
    if (typeof value[field] !== 'string') return `${field} is missing or not a string`;
  }
  if (typeof value.seq !== 'number' || typeof value.prev !== 'string') return 'seq or prev is missing';
  if ('commitment' in value) {
    if (!isObject(value.request)) return 'request is missing or not an object';
    if (typeof value.commitment !== 'string' || !HASH_HEX.test(value.commitment))
      return 'commitment is not 64 hex characters';
    return undefined;
  }
  const reveal = value.reveal;
  if (!isObject(reveal)) return 'neither a roll, a sealed roll nor a reveal';
  if (typeof reveal.seq !== 'number') return 'reveal.seq is missing';
  if (typeof reveal.salt !== 'string' || !SALT_HEX.test(reveal.salt))
    return 'reveal.salt is not 64 hex characters';
  if (!isObject(reveal.receipt)) return 'reveal.receipt is missing';
  return undefined;
}

/**
 * Whether one entry of a table's log (a receipt, a sealed entry or a reveal) was signed by one of
 * the keys of `jwks` and is unchanged since; a reveal's receipt is checked too. Never throws.
 */
export async function verifyEntry(entry: unknown, jwks: Jwks): Promise<VerifyResult> {
  if (isObject(entry) && 'roll' in entry) return verifyReceipt(entry, jwks);
  if (!isObject(entry)) return { valid: false, reason: 'malformed entry: not a JSON object' };
  const problem = entryProblem(entry);
  if (problem !== undefined) return { valid: false, reason: `malformed entry: ${problem}` };
  const result = await verifySigned(
    entry as Record<string, unknown> & { signature: string; kid: string },
    jwks,
    'entry',
  );
  if (!result.valid || !isObject(entry.reveal)) return result;
  const inner = await verifyReceipt(entry.reveal.receipt, jwks);
  return inner.valid ? result : { valid: false, reason: `the revealed receipt: ${inner.reason}` };
}

/** The signed request without `note`: what a sealed entry shows of a roll's request. */
const withoutNote = (request: Record<string, unknown>): Record<string, unknown> => {
  const { note: _note, ...shown } = request;
  return shown;
};

/**
 * Whether `receipt` and `salt` are what the sealed entry `sealed` committed to: the commitment
 * matches, and the receipt is the roll of that entry (same table, sequence number and `prev`, the
 * request the entry shows). Checks no signature: verifyEntry or verifyChain does. Never throws.
 */
export async function verifyReveal(
  sealed: SealedEntry,
  receipt: Receipt,
  salt: string,
): Promise<{ valid: true } | { valid: false; reason: string }> {
  let commitment: string;
  try {
    commitment = await commitmentOf(receipt, salt);
  } catch (error) {
    return { valid: false, reason: `the reveal cannot be hashed: ${(error as Error).message}` };
  }
  if (commitment !== sealed.commitment)
    return {
      valid: false,
      reason: `the revealed receipt and salt do not hash to the commitment of entry ${sealed.seq}`,
    };
  if (receipt.table !== sealed.table || receipt.seq !== sealed.seq || receipt.prev !== sealed.prev)
    return { valid: false, reason: `the revealed receipt is not the roll of entry ${sealed.seq}` };
  if (canonicalJson(withoutNote(receipt.request)) !== canonicalJson(sealed.request))
    return { valid: false, reason: `the revealed receipt asked otherwise than entry ${sealed.seq} shows` };
  return { valid: true };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * How a log compares with a head it is given: the head must verify, name the log's table, and
 * promise no more entries than the log has; the log's entry number `head.entries` must hash to
 * `head.lastHash` (an empty head: no entry, lastHash all zeros). Undefined when it holds.
 */
async function headProblemWith(
  entries: readonly unknown[],
  table: string | undefined,
  head: unknown,
  jwks: Jwks,
): Promise<{ seq: number | undefined; reason: string } | undefined> {
  const signed = await verifyHead(head, jwks);
  if (!signed.valid) return { seq: undefined, reason: `the head: ${signed.reason}` };
  const { entries: promised, lastHash, table: headTable } = head as TableHead;
  if (table !== undefined && headTable !== table)
    return { seq: undefined, reason: 'the head is of another table' };
  if (entries.length < promised)
    return {
      seq: entries.length + 1,
      reason: `the head promises ${plural(promised, 'entry', 'entries')} but the log has ${entries.length}: entries were cut from its end`,
    };
  const at = promised === 0 ? GENESIS_PREV : await receiptHash(entries[promised - 1] as TableEntry);
  if (at !== lastHash)
    return {
      seq: promised,
      reason:
        promised === 0
          ? 'the head is of an empty log, whose last hash is all zeros'
          : `entry ${promised} is not the entry the head signed: the log forks from the head`,
    };
  return undefined;
}

/**
 * Whether `entries` (a table's log from sequence 1, in order) is one unbroken chain: every entry
 * valid, at the same table, numbered 1, 2, 3... and each `prev` the hash of the entry before;
 * every reveal opens an earlier sealed entry of the log, once, to exactly what it committed to.
 * A hidden, edited or reordered entry breaks it. With `head` (the signed head a read of the log
 * carried, or the latest one held), the log must also be at least as long as the head promises,
 * and its entry number `head.entries` must be the one the head signed: a log cut short after the
 * head, or forked from it, is invalid.
 */
export async function verifyChain(
  entries: readonly unknown[],
  jwks: Jwks,
  head?: unknown,
): Promise<ChainResult> {
  let prev = GENESIS_PREV;
  let table: string | undefined;
  /** Sealed entries by sequence number, and whether each is revealed yet. */
  const sealed = new Map<number, { entry: SealedEntry; revealed: boolean }>();
  let revealed = 0;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as TableEntry;
    const result = await verifyEntry(entry, jwks);
    const seq = index + 1;
    if (!result.valid) return { valid: false, seq, reason: result.reason };
    if (entry.table === undefined) return { valid: false, seq, reason: 'not a table entry' };
    table ??= entry.table;
    if (entry.table !== table) return { valid: false, seq, reason: 'entry of another table' };
    if (entry.seq !== seq) return { valid: false, seq, reason: `expected sequence number ${seq}` };
    if (entry.prev !== prev) return { valid: false, seq, reason: 'prev is not the hash of the entry before' };
    if ('roll' in entry && entry.request.sealed === true)
      return { valid: false, seq, reason: "a sealed roll's receipt stands where its sealed entry belongs" };
    if ('commitment' in entry) sealed.set(seq, { entry, revealed: false });
    if ('reveal' in entry) {
      const target = sealed.get(entry.reveal.seq);
      if (target === undefined)
        return {
          valid: false,
          seq,
          reason: `it reveals entry ${entry.reveal.seq}, which is no earlier sealed roll`,
        };
      if (target.revealed)
        return { valid: false, seq, reason: `entry ${entry.reveal.seq} is revealed twice` };
      const opened = await verifyReveal(target.entry, entry.reveal.receipt, entry.reveal.salt);
      if (!opened.valid) return { valid: false, seq, reason: opened.reason };
      target.revealed = true;
      revealed++;
    }
    prev = await receiptHash(entry);
  }
  if (head !== undefined) {
    const problem = await headProblemWith(entries, table, head, jwks);
    if (problem !== undefined) return { valid: false, ...problem };
  }
  return sealed.size === 0
    ? { valid: true, entries: entries.length }
    : { valid: true, entries: entries.length, sealed: sealed.size, revealed };
}

/** How a later head of a table stands to one held: the same log, a longer one, or a cut or a fork. */
export type HeadComparison =
  | { status: 'same' | 'longer'; reason?: undefined }
  | { status: 'shorter' | 'forked' | 'other table'; reason: string };

/**
 * Compares the head `later` (of a new read) with `held` (the latest head kept of the same table);
 * both should verify first (verifyHead). `shorter`: the later read holds fewer entries than the
 * held head promised (entries were cut); `forked`: as many entries, another last hash; `longer`:
 * consistent only if the later log's entry number `held.entries` still hashes to
 * `held.lastHash`, which `entryMatchesHead` (or verifyChain with `held`) checks.
 */
export function compareHeads(held: TableHead, later: TableHead): HeadComparison {
  if (later.table !== held.table)
    return { status: 'other table', reason: 'the heads are of different tables' };
  if (later.entries < held.entries)
    return {
      status: 'shorter',
      reason: `a head held promises ${plural(held.entries, 'entry', 'entries')} but this read has ${later.entries}: entries were cut from the log`,
    };
  if (later.entries === held.entries)
    return later.lastHash === held.lastHash
      ? { status: 'same' }
      : {
          status: 'forked',
          reason: `this read and a head held both have ${plural(held.entries, 'entry', 'entries')} but end in different entries: the log forked`,
        };
  return { status: 'longer' };
}

/** Whether `entry` is the last entry `head` signed: its number is `head.entries` and it hashes to `head.lastHash`. */
export async function entryMatchesHead(entry: TableEntry, head: TableHead): Promise<boolean> {
  return entry.seq === head.entries && (await receiptHash(entry)) === head.lastHash;
}

// One roll per question (docs/api.md#idempotency): a roll or batch sent with an Idempotency-Key
// is answered once; the same key with the same request from the same caller within 24 hours gets
// that first answer again (`replayed: true`; REST: the `Idempotent-Replayed` header), rolling
// nothing and charging nothing; the same key with another request is refused. The key is reserved
// in the store before anything is rolled, so two requests racing with one key make one roll, on
// one instance or several. The answer is kept encrypted under a key made from the caller and the
// Idempotency-Key itself, which the store never holds (only a hash of them): a kept answer (a
// sealed roll's reveal token, say: docs/trust.md#sealed-rolls) is readable only by a replay of
// the same caller with the same key, never from the store.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson } from '@fairdice/client/verify';
import { DiceError, MESSAGES } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { DiceContext } from './context.js';
import { asTrustError, trustOf } from './tables.js';

/** How often a request polls for the answer of another request holding its key. */
const POLL_MS = 25;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** An answer marked as a replay of the first one. */
export type Replayable<T> = T & { replayed?: true };

/**
 * Runs `run` once per Idempotency-Key of the caller: the first request with `key` runs it and
 * keeps the answer; later ones with the same operation and input get it back with
 * `replayed: true`. `input` is what names the request (its key left out). No key: just runs.
 * A request that fails keeps no answer: its key may be sent again.
 */
export async function idempotent<T extends object>(
  operation: string,
  key: string | undefined,
  input: object,
  ctx: DiceContext,
  run: () => T | Promise<T>,
): Promise<Replayable<T>> {
  if (key === undefined) return run();
  const { store } = trustOf(ctx);
  // Scoped to the caller: the rate limit's key (an address, or a Discord user).
  const caller = `${ctx.caller ?? ctx.address ?? ''}\n${key}`;
  const scoped = sha256(caller);
  const secret = answerKey(caller);
  const { idempotencyKey: _key, ...named } = input as { idempotencyKey?: unknown };
  const fingerprint = sha256(`${operation}\n${canonicalJson(named)}`);
  const deadline = Date.now() + LIMITS.idempotencyWaitMs;
  for (;;) {
    const now = Date.now();
    const held = await store
      // A reservation outlives the wait of every request behind it, and lapses if its process dies.
      .reserveIdempotencyKey(scoped, fingerprint, now, 3 * LIMITS.idempotencyWaitMs)
      .catch((error: unknown) => {
        throw asTrustError(error);
      });
    if (held.state === 'reserved') return answerOnce(scoped, fingerprint, secret, ctx, run);
    if (held.fingerprint !== fingerprint)
      throw new DiceError('idempotency_key_reused', MESSAGES.idempotencyKeyReused);
    if (held.state === 'done') return { ...(JSON.parse(keptText(held.body, secret)) as T), replayed: true };
    if (now >= deadline) throw new DiceError('idempotency_key_in_use', MESSAGES.idempotencyKeyInUse);
    await sleep(POLL_MS);
  }
}

async function answerOnce<T extends object>(
  scoped: string,
  fingerprint: string,
  secret: Buffer,
  ctx: DiceContext,
  run: () => T | Promise<T>,
): Promise<T> {
  const { store } = trustOf(ctx);
  let answer: T;
  try {
    answer = await run();
  } catch (error) {
    await store.releaseIdempotencyKey(scoped, fingerprint).catch(() => {});
    throw error;
  }
  await store
    .completeIdempotencyKey(
      scoped,
      fingerprint,
      sealedText(JSON.stringify(answer), secret),
      Date.now(),
      LIMITS.idempotencyKeyTtlMs,
    )
    .catch((error: unknown) => {
      throw asTrustError(error);
    });
  return answer;
}

/** The key a kept answer is encrypted with: from the caller and its Idempotency-Key, never stored. */
const answerKey = (caller: string): Buffer =>
  createHash('sha256').update(`fairdice idempotent answer\n${caller}`, 'utf8').digest();

/** `text` encrypted with AES-256-GCM under `key`: base64url of the 12-byte IV, the 16-byte tag, the ciphertext. */
function sealedText(text: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/**
 * The JSON text of a kept answer. Answers kept before they were encrypted (kept 24 hours, so
 * still there right after an upgrade) are the JSON text itself: it starts with `{` or `[`, which
 * base64url never holds, so the two never mix up. Those answers predate sealed rolls: no reveal
 * token is ever kept in the clear.
 */
const keptText = (kept: string, key: Buffer): string => (/^[{[]/.test(kept) ? kept : opened(kept, key));

/** What sealedText encrypted; throws when `key` is not the one it was encrypted under. */
function opened(kept: string, key: Buffer): string {
  const bytes = Buffer.from(kept, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

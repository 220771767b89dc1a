// Tables for the luck report's tests (docs/trust.md#how-lucky-the-night-was): rolls whose dice a
// test chooses, and sealed rolls with their reveals written through the real store and signed
// with the service's own key, as the service writes them (packages/client/src/verify.ts checks
// them).
import type { Roll, SignedRequest } from '@fairdice/client/types';
import type { FastifyInstance } from 'fastify';
import type { RandomSource } from '../../src/index.js';
import type { Receipt } from '../../src/trust/receipt.js';
import type { Trust } from '../../src/trust/service.js';
import { sealCommitment, signReceipt } from '../../src/trust/sign.js';

/** A random source that throws the faces a test queues next (1 once they run out). */
export function queuedSource(): RandomSource & { queue: number[] } {
  const source = {
    queue: [] as number[],
    die(_sides: number): number {
      return source.queue.shift() ?? 1;
    },
  };
  return source;
}

/** Rolls `formula` at `table` through POST /v1/roll with the faces given; answers the total. */
export async function rollAt(
  app: FastifyInstance,
  source: { queue: number[] },
  table: string,
  formula: string,
  faces: readonly number[],
  extra: Record<string, unknown> = {},
): Promise<number> {
  source.queue.push(...faces);
  const response = await app.inject({
    method: 'POST',
    url: '/v1/roll',
    payload: { formula, table, ...extra },
  });
  if (response.statusCode !== 200) throw new Error(response.body);
  return (response.json() as { total: number }).total;
}

export async function newTable(app: FastifyInstance): Promise<string> {
  return ((await app.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string }).id;
}

const SALT = 'ab'.repeat(32);

/** A sealed roll appended to `table` as the service appends one: its receipt and salt, for a reveal. */
export async function appendSealed(
  trust: Trust,
  table: string,
  request: SignedRequest,
  roll: Roll,
): Promise<{ seq: number; receipt: Receipt }> {
  let receipt: Receipt | undefined;
  const now = Date.now();
  const asked = { ...request, sealed: true as const };
  const { note: _note, ...shown } = asked;
  const entry = await trust.store.append(
    table,
    (seq, prev) => {
      receipt = signReceipt(trust.keys, { request: asked, roll, table, seq, prev }, now);
      const commitment = sealCommitment(receipt, SALT);
      return signReceipt(trust.keys, { table, seq, prev, request: shown, commitment } as never, now);
    },
    now,
  );
  return { seq: entry.seq ?? 0, receipt: receipt! };
}

/** The reveal of a sealed roll, appended as the service appends one. */
export async function appendReveal(
  trust: Trust,
  table: string,
  sealed: { seq: number; receipt: Receipt },
): Promise<number> {
  const now = Date.now();
  const entry = await trust.store.append(
    table,
    (seq, prev) =>
      signReceipt(
        trust.keys,
        { table, seq, prev, reveal: { seq: sealed.seq, receipt: sealed.receipt, salt: SALT } } as never,
        now,
      ),
    now,
  );
  return entry.seq ?? 0;
}

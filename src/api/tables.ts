// The receipt and table operations: signed rolls, tables and their logs, stored receipts,
// verification and the published keys. Store failures become the service's errors here: a
// missing table 404, a full one 409, the creation quota 429, the store down 503 (docs/trust.md).
import type {
  Roll,
  RollResponse,
  TableCreated,
  TableHead,
  TableRolls,
  VerifyResponse,
} from '@fairdice/client/types';
import { verifyChain, verifyHead, verifyReceipt } from '@fairdice/client/verify';
import { DiceError, MESSAGES, RequestError } from '../errors.js';
import type { RollRequest } from '../roll/types.js';
import {
  StoreUnavailableError,
  TableFullError,
  TableNotFoundError,
  TooManyTablesError,
} from '../store/store.js';
import type { Jwks, Receipt, SignedRequest } from '../trust/receipt.js';
import type { Trust } from '../trust/service.js';
import type { DiceContext } from './context.js';
import { rollBatch, rollOne } from './roll.js';

/**
 * A store failure as the service error it stands for; anything else unchanged. A failure of the
 * store itself (anything but a table's own refusal or a service error) is told to `trust`'s
 * observer (the metrics).
 */
export function asTrustError(error: unknown, trust?: Trust): unknown {
  if (error instanceof StoreUnavailableError) {
    trust?.observer?.storeFailed();
    return new DiceError('unavailable', MESSAGES.unavailable);
  }
  if (error instanceof TableNotFoundError) return new DiceError('not_found', MESSAGES.tableNotFound);
  if (error instanceof TableFullError)
    return new DiceError('table_full', MESSAGES.tableFull(error.maxEntries));
  if (error instanceof TooManyTablesError)
    return new DiceError('too_many_tables', MESSAGES.tooManyTables(error.tablesPerHour));
  // Not the service's own refusal: the store failed (an SQLite error, a Redis reply it cannot read).
  if (!(error instanceof DiceError)) trust?.observer?.storeFailed();
  return error;
}

/** The context's receipts and tables; a context built without them (an embedder's) answers 503. */
export function trustOf(ctx: DiceContext): Trust {
  if (ctx.trust === undefined) throw new DiceError('unavailable', MESSAGES.unavailable);
  return ctx.trust;
}

async function translated<T>(trust: Trust | undefined, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw asTrustError(error, trust);
  }
}

/**
 * What a roll request may add to ask for a receipt or a table (GET sends `receipt` as text), and
 * who rolls and why, which are signed with what was asked (docs/trust.md#who-and-why).
 */
export interface RollSwitches {
  receipt?: boolean | 'true' | 'false' | undefined;
  table?: string | undefined;
  by?: string | undefined;
  note?: string | undefined;
}

/** The request as signed: what shapes the roll, without the switches, undefined fields left out. */
export function signedRequestOf(request: RollRequest & RollSwitches): SignedRequest {
  const signed: SignedRequest = { formula: request.formula };
  if (request.advantage !== undefined) signed.advantage = request.advantage;
  if (request.bonuses !== undefined) signed.bonuses = [...request.bonuses];
  if (request.tags !== undefined) signed.tags = [...request.tags];
  if (request.by !== undefined) signed.by = request.by;
  if (request.note !== undefined) signed.note = request.note;
  return signed;
}

const wantsReceipt = (switches: RollSwitches) =>
  switches.receipt === true || switches.receipt === 'true' || switches.table !== undefined;

/** Signs (and keeps) an already rolled result: at the table when one is named. */
function signed(request: RollRequest & RollSwitches, roll: Roll, trust: Trust): Promise<RollResponse> {
  const asked = signedRequestOf(request);
  return translated(trust, async () => {
    const receipt =
      request.table === undefined
        ? await trust.sign(asked, roll)
        : await trust.signAtTable(request.table, asked, roll);
    return { ...roll, receipt };
  });
}

/**
 * One roll; signed only when asked. An unsigned roll takes exactly the path it always took: no
 * key, no store, no extra allocation.
 */
export function rollOneMaybeSigned(
  request: RollRequest & RollSwitches,
  ctx: DiceContext,
): RollResponse | Promise<RollResponse> {
  // A throws budget shared through Redis answers first (docs/operations.md#what-one-address-can-cost).
  const shared = ctx.throwMeter?.sharedAdmit();
  if (shared !== undefined) return shared.then(() => rollOneAdmitted(request, ctx));
  return rollOneAdmitted(request, ctx);
}

function rollOneAdmitted(
  request: RollRequest & RollSwitches,
  ctx: DiceContext,
): RollResponse | Promise<RollResponse> {
  const roll = rollOne(request, ctx);
  if (!wantsReceipt(request)) return roll;
  return signed(request, roll, trustOf(ctx));
}

/** A batch; each item that asks for a receipt or a table is signed, in order. */
export async function rollBatchMaybeSigned(
  requests: ReadonlyArray<RollRequest & RollSwitches>,
  ctx: DiceContext,
): Promise<{ rolls: RollResponse[] }> {
  await ctx.throwMeter?.sharedAdmit();
  const { rolls } = rollBatch(requests, ctx);
  if (!requests.some(wantsReceipt)) return { rolls };
  const answered: RollResponse[] = [];
  for (let index = 0; index < rolls.length; index++) {
    const request = requests[index]!;
    answered.push(wantsReceipt(request) ? await signed(request, rolls[index]!, trustOf(ctx)) : rolls[index]!);
  }
  return { rolls: answered };
}

export function createTable(ctx: DiceContext): Promise<TableCreated> {
  return translated(ctx.trust, async () => {
    const table = await trustOf(ctx).createTable(ctx.address ?? 'unknown');
    return {
      id: table.id,
      createdAt: new Date(table.createdAt).toISOString(),
      maxEntries: trustOf(ctx).limits.maxEntries,
      retentionDays: Math.round(trustOf(ctx).limits.retentionMs / 86_400_000),
      links: { rolls: `/v1/tables/${table.id}/rolls`, events: `/v1/tables/${table.id}/events` },
    };
  });
}

export function tableRolls(
  input: { id: string; after?: number | undefined; limit?: number | undefined },
  ctx: DiceContext,
  pageMax: number,
): Promise<TableRolls> {
  return translated(ctx.trust, async () => {
    const now = Date.now();
    const table = await trustOf(ctx).store.table(input.id, now);
    if (table === undefined) throw new TableNotFoundError();
    const rolls = await trustOf(ctx).store.rolls(
      input.id,
      input.after ?? 0,
      Math.min(input.limit ?? pageMax, pageMax),
      now,
    );
    if (rolls === undefined) throw new TableNotFoundError();
    return { table: input.id, entries: table.entries, rolls, head: trustOf(ctx).head(table) };
  });
}

export function storedRoll(input: { rollId: string }, ctx: DiceContext): Promise<Receipt> {
  return translated(ctx.trust, async () => {
    const receipt = await trustOf(ctx).store.receipt(input.rollId, Date.now());
    if (receipt === undefined) throw new DiceError('not_found', MESSAGES.rollNotFound);
    return receipt;
  });
}

/**
 * A receipt; a head; or a log, with or without a head (docs/trust.md#signed-heads). A log shorter
 * than the head it is checked against is invalid, and the reason says how many entries the head
 * promises and how many the log has.
 */
export async function verify(
  input: { receipt?: unknown; head?: unknown; rolls?: readonly unknown[] | undefined },
  ctx: DiceContext,
): Promise<VerifyResponse> {
  const { jwks } = trustOf(ctx).keys;
  if (input.receipt !== undefined && (input.head !== undefined || input.rolls !== undefined))
    throw new RequestError('Give a receipt, or a head and/or a log (rolls), not both.');
  if (input.rolls !== undefined) {
    const result = await verifyChain(input.rolls, jwks, input.head);
    if (!result.valid)
      return {
        valid: false,
        reason: result.seq === undefined ? result.reason : `entry ${result.seq}: ${result.reason}`,
      };
    const kid =
      (input.head as { kid?: string } | undefined)?.kid ??
      (input.rolls[0] as { kid?: string } | undefined)?.kid;
    return { valid: true, ...(kid === undefined ? {} : { kid }), entries: result.entries };
  }
  if (input.head !== undefined) {
    const result = await verifyHead(input.head, jwks);
    return result.valid
      ? { valid: true, kid: result.kid, entries: (input.head as TableHead).entries }
      : { valid: false, reason: result.reason };
  }
  const result = await verifyReceipt(input.receipt, jwks);
  return result.valid ? { valid: true, kid: result.kid } : { valid: false, reason: result.reason };
}

export const publishedKeys = (ctx: DiceContext): Jwks => trustOf(ctx).keys.jwks;

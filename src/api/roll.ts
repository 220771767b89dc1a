// The rolling work behind the roll operations: prepare (parse and count) every roll, enforce the
// batch budget before any die is thrown, then roll with the context's random source. Throws the
// engine's DiceErrors unchanged: the edges translate them.
import { FormulaError, RequestError, TooManyDiceError } from '../errors.js';
import { type PreparedRoll, prepareRoll } from '../formula/index.js';
import { LIMITS } from '../limits.js';
import { rollPrepared, type ThrowBudget } from '../roll/roll.js';
import type { RollRequest, RollResponse } from '../roll/types.js';
import type { DiceContext } from './context.js';

export type { ThrowMeter } from './context.js';

function deprecationLogger(ctx: DiceContext) {
  return (warning: { message: string; item: string }) => {
    ctx.log.warn({ deprecation: warning.item }, warning.message);
  };
}

/** Runs `work` once the meter admits it, then charges what it threw from `budget`. */
function metered<T>(ctx: DiceContext, budget: ThrowBudget, work: () => T): T {
  const meter = ctx.throwMeter;
  if (meter === undefined) return work();
  meter.admit();
  try {
    return work();
  } finally {
    meter.charge(Math.min(budget.limit, budget.limit - budget.left));
  }
}

/** One budget per request: a batch's rolls all spend from it. */
function throwBudgetOf(ctx: DiceContext): ThrowBudget {
  const limit = ctx.throwsPerRequest ?? LIMITS.throwsPerRequest;
  return { left: limit, limit };
}

// Written out rather than through `metered`: the one roll of every GET /v1/roll makes no closure
// (docs/performance.md#no-closures-per-request).
export function rollOne(request: RollRequest, ctx: DiceContext): RollResponse {
  const throwBudget = throwBudgetOf(ctx);
  const meter = ctx.throwMeter;
  meter?.admit();
  try {
    const prepared = prepareRoll(request, { dicePerRoll: ctx.dicePerRoll });
    const onDeprecation = prepared.deprecations.length === 0 ? undefined : deprecationLogger(ctx);
    return rollPrepared(prepared, { random: ctx.random, onDeprecation, throwBudget });
  } finally {
    meter?.charge(Math.min(throwBudget.limit, throwBudget.limit - throwBudget.left));
  }
}

/** Locates an item's error inside the batch, so the message names `rolls[3].formula`. */
function withinBatch(error: unknown, index: number): unknown {
  if (error instanceof FormulaError) return error.within(`rolls[${index}]`);
  if (error instanceof RequestError) return new RequestError(`rolls[${index}]: ${error.message}`);
  return error;
}

export function rollBatch(requests: readonly RollRequest[], ctx: DiceContext): { rolls: RollResponse[] } {
  const throwBudget = throwBudgetOf(ctx);
  return metered(ctx, throwBudget, () => rollBatchWithin(requests, ctx, throwBudget));
}

function rollBatchWithin(
  requests: readonly RollRequest[],
  ctx: DiceContext,
  throwBudget: ThrowBudget,
): { rolls: RollResponse[] } {
  const onDeprecation = deprecationLogger(ctx);
  const prepared: PreparedRoll[] = [];
  let requested = 0;
  for (let index = 0; index < requests.length; index++) {
    try {
      const roll = prepareRoll(requests[index]!, { dicePerRoll: ctx.dicePerRoll });
      requested += roll.diceCount;
      prepared.push(roll);
    } catch (error) {
      throw withinBatch(error, index);
    }
  }
  if (requested > ctx.dicePerBatch) throw new TooManyDiceError(ctx.dicePerBatch, requested);
  return {
    rolls: prepared.map((roll) => rollPrepared(roll, { random: ctx.random, onDeprecation, throwBudget })),
  };
}

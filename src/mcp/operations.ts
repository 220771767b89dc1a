// The operations exposed as tools, each with its tool marker: the rolling operations of the
// router (src/api/router.ts), with the same schemas and the same rolling work.
import { rollBatch, rollOne } from '../api/roll.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  RollRequestSchema,
  RollResponseSchema,
} from '../api/schemas.js';
import type { DiceContext } from '../api/trpc.js';
import { LIMITS } from '../limits.js';
import type { RollRequest, RollResponse } from '../roll/types.js';
import { batchLines, rollLine } from './lines.js';
import type { ToolMarker, ToolOperation } from './tools.js';

const rollTool: ToolMarker<RollRequest, RollResponse> = {
  name: 'roll',
  title: 'Roll dice',
  description:
    'Rolls a dice formula with a fair random source and returns every die, which counted, and the total. ' +
    'Call it whenever a game needs a roll: never make up a result. Optional: advantage ' +
    '(advantage/disadvantage), bonuses (integers or formula fragments), tags (a trailing word the formula may end with).',
  readOnly: true,
  idempotent: false,
  line: rollLine,
};

const batchTool: ToolMarker<{ rolls: RollRequest[] }, { rolls: RollResponse[] }> = {
  name: 'roll_batch',
  title: 'Roll several formulas',
  description: `Rolls up to ${LIMITS.rollsPerBatch} formulas at once, in order (one line per roll); their dice share one budget of ${LIMITS.dicePerBatch} by default.`,
  readOnly: true,
  idempotent: false,
  line: batchLines,
};

export const TOOL_OPERATIONS = {
  rollWith: {
    input: RollRequestSchema,
    output: RollResponseSchema,
    run: (input: RollRequest, ctx: DiceContext) => rollOne(input, ctx),
    tool: rollTool,
  },
  batch: {
    input: BatchRollRequestSchema,
    output: BatchRollResponseSchema,
    run: (input: { rolls: RollRequest[] }, ctx: DiceContext) => rollBatch(input.rolls, ctx),
    tool: batchTool,
  },
} satisfies Record<string, ToolOperation>;

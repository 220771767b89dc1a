// Which operations of the service's table (src/api/operations.ts) are MCP tools, and what only a
// model reads of them: the tool's name, its description, its hints and its one line of text
// (docs/mcp.md). The operation table knows nothing of MCP; src/mcp/tools.ts joins the two.
import { z } from 'zod';
import type { OPERATIONS, Operation } from '../api/operations.js';
import { LIMITS } from '../limits.js';
import {
  batchLines,
  reportLines,
  rollLine,
  statsLine,
  tableCreatedLine,
  tableLogLines,
  verifyLine,
} from './lines.js';

/** The resource holding the language reference (docs/language.md). */
export const LANGUAGE_URI = 'fairdice://docs/language.md';

/**
 * The notation, in the description of the tools that take a formula, so that a model's first
 * formula is valid and it knows pools, Fate dice and groups exist.
 */
export const NOTATION = [
  'Formulas: NdS throws N dice of S sides (d20, 3d6, d%); join dice and whole numbers with + - * / and parentheses: 1d8+1d6+3, (1d8+4)*2.',
  'Modifiers follow a term with no space: kh3/kl1 keep highest/lowest, dl1/dh1 drop, 2d20adv/2d20dis, ! explodes (!! compounds, !p penetrates), r1 rerolls 1s, x2 multiplies.',
  'Dice pools count successes: 8d10>=8 (f1 subtracts 1s as failures; 8d10>=8!>=10 explodes 10s). Fate dice: 4dF (faces -1, 0, +1). Groups: {1d8!,1d6!}kh1 keeps the better item, {4d6+3d8}kh3 the best 3 dice. Labels: 2d6[fire].',
  `Full reference: the resource ${LANGUAGE_URI}.`,
].join('\n');

/** Where a tool taking a formula points instead of repeating the notation. */
const SEE_NOTATION = `Formulas as in the roll tool's description (success pools, Fate dice and groups included); the full reference is the resource ${LANGUAGE_URI}.`;

/**
 * The mark that exposes an operation as an MCP tool: its input schema, output schema and errors
 * are the operation's; the marker adds what only a model reads.
 */
export interface ToolMarker<In = never, Out = never> {
  /** The tool's name: lowercase words joined by `_` (`roll`, `roll_batch`). */
  name: string;
  title: string;
  /** What the tool does and when to call it, for a model: short, and about this tool. */
  description: string;
  /** It changes nothing anywhere (the tool's readOnlyHint). */
  readOnly: boolean;
  /** Calling it twice with the same arguments has the effect of calling it once (idempotentHint). */
  idempotent: boolean;
  /**
   * Arguments only the tool takes, added to the operation's input object (the stats tool's
   * `target`): validated with it, given to `line`, never to `run`.
   */
  extraInput?: Readonly<Record<string, z.ZodType>>;
  /**
   * Optional fields of the operation's input that the tool requires: one operation, several
   * tools (`table_roll` is the roll operation with `table` required). A name the input lacks stops start-up.
   */
  requires?: readonly string[];
  /** Fields of the operation's input the tool does not take (`roll` leaves `table` to `table_roll`). */
  omits?: readonly string[];
  /**
   * Fields the tool names otherwise, tool name to the operation's (`{ table: 'id' }`): one name
   * for the same thing in every tool, whatever the REST path calls it.
   */
  renames?: Readonly<Record<string, string>>;
  /** The one line of text a model reads and quotes, from the output and the validated input. */
  line(output: Out, input: In & Record<string, unknown>): string;
}

export type OneOrMore<T> = T | readonly [T, ...T[]];

type InputOf<E> =
  E extends Operation<infer I, z.ZodType, 'query' | 'mutation'>
    ? I extends z.ZodType
      ? z.output<I>
      : undefined
    : never;
type OutputOf<E> =
  E extends Operation<z.ZodType | undefined, infer O, 'query' | 'mutation'> ? z.output<O> : never;

/** The markers of a table of operations, by operation name, typed by each operation's input and output. */
export type ToolMarkers<Ops> = {
  readonly [K in keyof Ops]?: OneOrMore<ToolMarker<InputOf<Ops[K]>, OutputOf<Ops[K]>>>;
};

/** The service's tools, in the order tools/list shows them (the operation table's order). */
export const TOOL_MARKERS: ToolMarkers<typeof OPERATIONS> = {
  rollWith: [
    {
      name: 'roll',
      title: 'Roll dice',
      description: [
        'Rolls a dice formula with a fair random source: every die and the total, in one line to quote. ' +
          'Call it for every roll a game needs; never make a result up. Optional: advantage (first d20), ' +
          'bonuses, tags, receipt (true: signed), by (who rolls), note (what for), ' +
          'idempotencyKey (new per roll; a retry with it answers the first roll). ' +
          'So that the players can check every roll, use table_roll.',
        NOTATION,
      ].join('\n'),
      readOnly: true,
      idempotent: false,
      omits: ['table'],
      line: (output, input) => rollLine(output, input),
    },
    {
      name: 'table_roll',
      title: 'Roll dice at a table',
      description:
        "Rolls a dice formula at a table (its id from table_create): the roll is signed and appended to the table's log, " +
        'which the players read (table_log) and check, rerolls included. Takes roll’s arguments with table required, and no receipt (every roll here is signed). ' +
        SEE_NOTATION,
      readOnly: false,
      idempotent: false,
      requires: ['table'],
      omits: ['receipt'],
      line: (output, input) => rollLine(output, input),
    },
  ],
  batch: {
    name: 'roll_batch',
    title: 'Roll several formulas',
    description:
      `Rolls up to ${LIMITS.rollsPerBatch} formulas in one call, in order, one line per roll; their dice share one budget (${LIMITS.dicePerBatch} by default). ` +
      'Each item takes roll’s arguments; an item naming a table (from table_create) is signed and appended to its log, as with table_roll. ' +
      SEE_NOTATION,
    // Not read-only: an item naming a table appends to that table's log.
    readOnly: false,
    idempotent: false,
    line: batchLines,
  },
  createTable: {
    name: 'table_create',
    title: 'Create a dice table',
    description:
      'Creates a table: a shared, signed log of the rolls of one game, so the players can check that no roll was made again until it suited. ' +
      'Answers its id: roll there with table_roll, read it with table_log. Create one per game and reuse it.',
    readOnly: false,
    idempotent: false,
    line: tableCreatedLine,
  },
  tableRolls: {
    name: 'table_log',
    title: "Read a table's log",
    description:
      `Reads the rolls made at a table (table: its id), in order, at most ${LIMITS.tableRollsPerPage} at a time (after: the last entry number already read), one line per roll. ` +
      'Each entry is a signed receipt holding the hash of the one before, so a removed or altered roll shows; ' +
      'the signed head (entries, last hash) says how long the log was, so a roll cut from its end shows too.',
    readOnly: true,
    idempotent: true,
    renames: { table: 'id' },
    line: tableLogLines,
  },
  tableReport: {
    name: 'table_report',
    title: 'How lucky the rolls of a table were',
    description:
      `Rates each roll at a table (table: its id) by its exact percentile under the odds of its own formula, over the last ${LIMITS.tableReportEntries} entries at most: ` +
      'the mean per roller and for the table, and a test of fair dice whose sentence you can quote ("Consistent with fair dice: …"). ' +
      'Call it when players ask whether the dice were kind or cruel; unusual is no proof of cheating.',
    readOnly: true,
    idempotent: true,
    renames: { table: 'id' },
    line: reportLines,
  },
  verifyReceipt: {
    name: 'verify_receipt',
    title: 'Verify a receipt',
    description:
      "Checks that a receipt (from roll with receipt true, table_roll or table_log) was signed by this fairdice's key " +
      'and that nothing in it was altered since: a die, the total, the formula, who and why, the time, the table entry. ' +
      "Or give a table's log (rolls, from entry 1) and its head (from table_log): the chain is checked, and a log shorter than its head fails. " +
      'A receipt that fails is no error: the answer says valid false and why.',
    readOnly: true,
    idempotent: true,
    line: verifyLine,
  },
  statsWith: {
    name: 'stats',
    title: 'Exact odds of a formula',
    description:
      'Exact odds of the total a roll of this formula would give, rolling nothing: min, max, mean, percentiles, ' +
      'every total. Call it before narrating a risk. Optional: targets (totals): the chance of at least and at most ' +
      'each; versus ({formula}): the chance this roll beats, ties or loses to that one. ' +
      `${SEE_NOTATION}`,
    readOnly: true,
    idempotent: true,
    extraInput: { target: z.number().int().optional() },
    line: (output, input) => statsLine(output, input as { target?: unknown }),
  },
};

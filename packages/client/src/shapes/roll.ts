// The shape of a roll's result, declared once: the zod schemas the service validates its answers
// with and documents them by (their `.meta()` is what the OpenAPI document shows), and the types
// the client, the page and the server's roller all use.
import { z } from 'zod';
import { ADVANTAGE_STATES } from '../constants.js';

/**
 * A whole number that may pass 2^53: a power can reach 10^100 (docs/language.md "Arithmetic and groups"),
 * and such a total is the nearest double, still a whole number. `z.number().int()` would refuse it.
 */
export const wholeNumber = () => z.number().multipleOf(1);

export const AdvantageStateSchema = z.enum(ADVANTAGE_STATES).meta({
  id: 'AdvantageState',
  description:
    'Applies to the first plain d20 term: `advantage` keeps the highest, `disadvantage` the lowest. ' +
    'The caller nets advantage and disadvantage itself.',
  // `normal` so that a "try it" form pre-filled from the example rolls the formula as written.
  example: 'normal',
});

const dieGroupExample = {
  sides: 6,
  sign: 1,
  results: [5, 2, 6, 4],
  kept: [6, 5, 4],
  keptFlags: [true, false, true, true],
  multiplier: 1,
  total: 15,
  naturalHigh: false,
  naturalLow: false,
} as const;

/** Examples of the optional DieGroup fields, each from a real response (test/client/shapes/roll.test.ts). */
export const DIE_GROUP_FIELD_EXAMPLES = {
  /** `2d6ro1` thrown 1, 5, 6: die 0's 1 was rerolled into a 5. */
  throws: [
    { die: 0, kind: 'roll', value: 1 },
    { die: 0, kind: 'reroll', value: 5 },
    { die: 1, kind: 'roll', value: 6 },
  ],
  /** `1d6!p` thrown 6, 1: the extra 1 is recorded as 0. */
  penetratedThrows: [
    { die: 0, kind: 'roll', value: 6 },
    { die: 0, kind: 'explode', value: 0, face: 1 },
  ],
  /** `d{1,1,2,3,5,8}` */
  faces: [1, 1, 2, 3, 5, 8],
  /** `2d6[fire]` */
  label: 'fire',
  /** `6d10>=8f1` thrown 8, 4, 10, 1, 9, 3: three successes, one failure, total 2. */
  successes: 3,
  failures: 1,
  /** `6d6m` thrown 3, 1, 3, 5, 1, 1: two 3s and three 1s are sets; the total stays 14. */
  matches: [1, 3],
} as const;

const dieThrow = z
  .strictObject({
    die: z.number().int().meta({ description: '0-based index of the die within its group.' }),
    kind: z.enum(['roll', 'reroll', 'explode']).meta({
      description:
        "`roll`: the die's first throw; `reroll`: a throw that replaced the one before it (which was rerolled away, by r, ro, u or uo); `explode`: an explosion extra.",
    }),
    value: z.number().int().meta({
      description:
        'The recorded value, the one `results` holds: after min/max, and minus 1 for an extra of `!p` or `!!p`.',
    }),
    face: z
      .number()
      .int()
      .optional()
      .meta({ description: 'The face that came up, present only when min/max or `!p` changed the value.' }),
  })
  .meta({
    id: 'DieThrow',
    description: 'One physical throw of a die.',
    example: DIE_GROUP_FIELD_EXAMPLES.penetratedThrows[1],
  });

/** One physical throw of a die (docs/language.md, "Every throw"). */
export interface DieThrow extends z.output<typeof dieThrow> {}
export const DieThrowSchema: z.ZodType<DieThrow, DieThrow> = dieThrow;

const dieGroup = z
  .strictObject({
    sides: z.number().int().meta({
      description: 'Sides of each die in the group; for Fate and custom dice, the number of faces.',
    }),
    sign: z.literal([1, -1]).meta({ description: "Sign of the group's contribution." }),
    results: z.array(z.number().int()).meta({
      description:
        "Every recorded throw, in rolling order, die by die: a die's rerolled-away throws, its final throw, then its explosion extras (so a die can take several entries; `throws` says which die each belongs to). An extra of `!p` is recorded minus 1. With `!!` (`compounded`), one merged value per die instead.",
    }),
    kept: z
      .array(z.number().int())
      .meta({ description: 'The entries of `results` that counted, highest first.' }),
    keptFlags: z.array(z.boolean()).meta({
      description:
        "Aligned index by index to `results`: whether each entry counted (every throw of a kept die's chain; never a rerolled-away throw).",
    }),
    multiplier: z.number().int().meta({ description: 'K from an `xK` modifier, else 1.' }),
    total: z.number().int().meta({
      description:
        "This group's signed contribution: sign * multiplier * sum(kept), or sign * multiplier * (successes - failures) when the term counts successes.",
    }),
    naturalHigh: z.boolean().meta({
      description:
        'One die kept, its final throw showing the largest face (or meeting `cs`), before min/max.',
    }),
    naturalLow: z.boolean().meta({
      description:
        'One die kept, its final throw showing the smallest face (or meeting `cf`), before min/max.',
    }),
    faces: z.array(z.number().int()).optional().meta({
      description: 'Fate (`dF`) and custom (`d{...}`) dice only: the faces, in written order.',
      example: DIE_GROUP_FIELD_EXAMPLES.faces,
    }),
    label: z.string().optional().meta({
      description: 'The label written after the term (`2d6[fire]`), only when written.',
      example: DIE_GROUP_FIELD_EXAMPLES.label,
    }),
    successes: z.number().int().optional().meta({
      description: 'Success counting only: how many kept values met the success point.',
      example: DIE_GROUP_FIELD_EXAMPLES.successes,
    }),
    failures: z.number().int().optional().meta({
      description: 'Only with `f`: how many kept values met the failure point.',
      example: DIE_GROUP_FIELD_EXAMPLES.failures,
    }),
    matches: z.array(z.number().int()).optional().meta({
      description:
        'Only with `m` / `mN` / `mt` / `mtN`: the values shown by at least N (default 2) kept dice, ascending. With `m` the total is unchanged; with `mt` the total is sign * multiplier * the number of these values.',
      example: DIE_GROUP_FIELD_EXAMPLES.matches,
    }),
    compounded: z.literal(true).optional().meta({
      description: "Only with `!!` or `!!p`: each die's throws are merged into one value in `results`.",
      example: true,
    }),
    throws: z.array(DieThrowSchema).optional().meta({
      description:
        'Only on terms written with r, ro, u, uo, !, !p, !! or !!p: every physical throw in rolling order. Without `!!`, `throws[i]` lines up with `results[i]`.',
      example: DIE_GROUP_FIELD_EXAMPLES.throws,
    }),
  })
  .meta({
    id: 'DieGroup',
    description: 'One dice term of the formula and what it rolled.',
    example: dieGroupExample,
  });

/** One dice term of the formula and what it rolled; the optional fields appear only when they apply. */
export interface DieGroup extends z.output<typeof dieGroup> {}
export const DieGroupSchema: z.ZodType<DieGroup, DieGroup> = dieGroup;

/**
 * A real `expression` (test/client/shapes/roll.test.ts): `{1d8!, 1d6!}kh1[trait]+floor((2d6+3)/2)`
 * thrown 8, 3 (the d8 exploded), 4, then 5 and 6.
 */
export const EXPRESSION_EXAMPLE = {
  type: 'operation',
  operator: '+',
  value: 18,
  operands: [
    {
      type: 'group',
      value: 11,
      items: [
        { value: 11, kept: true, node: { type: 'dice', group: 0, value: 11 } },
        { value: 4, kept: false, node: { type: 'dice', group: 1, value: 4 } },
      ],
      label: 'trait',
    },
    {
      type: 'function',
      name: 'floor',
      value: 7,
      arguments: [
        {
          type: 'operation',
          operator: '/',
          value: 7,
          operands: [
            {
              type: 'operation',
              operator: '+',
              value: 14,
              operands: [
                { type: 'dice', group: 2, value: 11 },
                { type: 'number', value: 3 },
              ],
            },
            { type: 'number', value: 2 },
          ],
        },
      ],
    },
  ],
} as const;

// A node of the evaluated tree is the one type written beside its schema rather than inferred
// from it: the schema (and so the OpenAPI document) describes a node as one object whose fields
// depend on `type`, while the type below is the union that lets a caller narrow on `type`.
// `narrowedTo` holds the two together: every member must fit the schema's object.

/**
 * A node of the evaluated formula (docs/language.md, "The expression tree"), with its value;
 * `exact` ("n/d") appears when the value is not an integer.
 */
export type ExpressionNode =
  /** A dice term: `group` indexes `dice`, `value` is that DieGroup's signed total. */
  | { type: 'dice'; group: number; value: number }
  | { type: 'number'; value: number }
  | {
      type: 'operation';
      operator: '+' | '-' | '*' | '/' | '%' | '^';
      value: number;
      exact?: string;
      /** Two for * / % ^ (base, exponent), one for a minus before a non-dice term, two or more for a sum. */
      operands: ExpressionNode[];
    }
  | {
      type: 'function';
      name: 'floor' | 'ceil' | 'round' | 'abs' | 'min' | 'max';
      value: number;
      exact?: string;
      arguments: ExpressionNode[];
    }
  | {
      type: 'group';
      value: number;
      exact?: string;
      items: GroupItem[];
      successes?: number;
      failures?: number;
      label?: string;
    };

const exactValue = () =>
  z
    .string()
    .optional()
    .meta({ description: 'The exact value as "n/d", present only when `value` is not an integer.' });

const groupItem = z
  .strictObject({
    value: z.number().meta({ description: "The item's value." }),
    exact: exactValue(),
    kept: z.boolean().meta({ description: 'Whether the group kept (counted) this item.' }),
    get node(): z.ZodType<ExpressionNode, ExpressionNode> {
      return ExpressionNodeSchema;
    },
  })
  .meta({ id: 'GroupItem', description: 'An item of a group: its value, whether it counted, and its tree.' });

/** An item of an evaluated group: its value, whether it counted, and its own tree. */
export interface GroupItem extends z.output<typeof groupItem> {}
export const GroupItemSchema: z.ZodType<GroupItem, GroupItem> = groupItem;

const ExpressionNodeFields = z
  .strictObject({
    type: z
      .enum(['dice', 'number', 'operation', 'function', 'group'])
      .meta({ description: 'What the node is.' }),
    group: z.number().int().optional().meta({ description: '`dice`: the index of its DieGroup in `dice`.' }),
    operator: z.enum(['+', '-', '*', '/', '%', '^']).optional().meta({
      description:
        '`operation`: a sum (+), a minus with one operand (-), a product (*), a quotient (/), a remainder of truncating division (%) or a power (^, written ^ or **; operands: base, exponent).',
    }),
    name: z
      .enum(['floor', 'ceil', 'round', 'abs', 'min', 'max'])
      .optional()
      .meta({ description: '`function`: its name, in lower case.' }),
    value: z.number().meta({
      description:
        "The node's value (a dice node: its DieGroup's signed total; a group: the kept items' sum, or successes minus failures).",
    }),
    exact: exactValue(),
    get operands() {
      return z
        .array(ExpressionNodeSchema)
        .optional()
        .meta({ description: '`operation`: its operands, in written order.' });
    },
    get arguments() {
      return z.array(ExpressionNodeSchema).optional().meta({ description: '`function`: its arguments.' });
    },
    items: z.array(GroupItemSchema).optional().meta({ description: '`group`: its items, in written order.' }),
    successes: z
      .number()
      .int()
      .optional()
      .meta({ description: '`group` with a success point: the kept items (or pool dice) meeting it.' }),
    failures: z.number().int().optional().meta({ description: '`group` with `f`: the failures counted.' }),
    label: z.string().optional().meta({ description: "`group`: the group's label, when written." }),
  })
  .meta({
    id: 'ExpressionNode',
    description: 'A node of the evaluated formula, with its value.',
    example: EXPRESSION_EXAMPLE.operands[1].arguments[0].operands[0],
  });

/** Every key that some member of the union T has. */
type KeysOf<T> = T extends unknown ? keyof T : never;

/** Whether every member of T fits the object Flat and names no field Flat lacks. */
type Fits<T, Flat> = [T] extends [Flat]
  ? [Exclude<KeysOf<T>, keyof Flat>] extends [never]
    ? true
    : false
  : false;

/** `schema` typed as T: a narrowing that fails to compile (it wants a second argument) once they drift. */
const narrowedTo = <T, S extends z.ZodType>(
  schema: S,
  ..._drifted: Fits<T, z.output<S>> extends true ? [] : ['the type does not fit the schema']
) => schema as unknown as z.ZodType<T, T>;

export const ExpressionNodeSchema: z.ZodType<ExpressionNode, ExpressionNode> = narrowedTo<
  ExpressionNode,
  typeof ExpressionNodeFields
>(ExpressionNodeFields);

const rollExample = {
  formula: '4d6kh3+2',
  dice: [dieGroupExample],
  modifier: 2,
  modifiers: [2],
  total: 17,
  advantageState: 'normal',
} as const;

/** A roll answer as the examples of the document show it. */
export const ROLL_EXAMPLE = rollExample;

/** The fields of a roll's result: a RollResponse without its receipt, and a receipt's `roll`. */
export const rollFields = {
  formula: z.string().meta({ description: 'The formula rolled, whitespace trimmed.' }),
  dice: z.array(DieGroupSchema).meta({ description: 'One entry per dice group.' }),
  modifier: z.number().int().meta({ description: 'Sum of the flat modifiers; dice are not counted.' }),
  modifiers: z.array(z.number().int()).meta({ description: 'Each flat modifier, in order.' }),
  total: wholeNumber().meta({
    description:
      'Total of the roll: the dice groups plus the modifiers, or with an `expression`, its root value rounded down.',
  }),
  advantageState: AdvantageStateSchema,
  tag: z.string().optional().meta({ description: 'The trailing tag word, when the formula ends with one.' }),
  expression: z.optional(ExpressionNodeSchema).meta({
    description:
      'Present only when the formula or a bonus uses parentheses, *, /, a function or a group: the evaluated tree, each node with its value. Then `total` is its root value rounded down, and `modifiers` hold only the flat numbers of the top-level sum.',
    example: EXPRESSION_EXAMPLE,
  }),
};

/** A roll's result as a receipt holds it: the roll answer without its receipt. */
const roll = z.strictObject(rollFields).meta({
  id: 'Roll',
  description: 'Every die rolled, which ones counted, and the total.',
  example: rollExample,
});

/** A roll's result as a receipt holds it: a RollResponse without its receipt. */
export interface Roll extends z.output<typeof roll> {}
export const RollSchema: z.ZodType<Roll, Roll> = roll;

// The zod schemas of the public API: both transports validate every input and output with them,
// the REST routes serialise with them, and trpc-to-openapi turns them into the OpenAPI components.
// Every limit comes from src/limits.ts.
import { z } from 'zod';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import { ADVANTAGE_STATES, type ExpressionResult } from '../roll/types.js';
import { VERSION } from '../version.js';

/**
 * true or false, never coerced: trpc-to-openapi turns top-level z.boolean() fields into coercing
 * ones (in place), which would read "receipt": "no" as true.
 */
const strictBoolean = () => z.literal([true, false]);

/**
 * A whole number that may pass 2^53: a power can reach 10^100 (docs/language.md "Arithmetic and groups"),
 * and such a total is the nearest double, still a whole number. `z.number().int()` would refuse it.
 */
export const wholeNumber = () => z.number().multipleOf(1);

/** A table id as POST /v1/tables makes it: base64url, at least 128 random bits. */
export const TableIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/)
  .meta({ description: 'A table id, as POST /v1/tables returned it.', example: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s' });

export const AdvantageStateSchema = z.enum(ADVANTAGE_STATES).meta({
  id: 'AdvantageState',
  description:
    'Applies to the first plain d20 term: `advantage` keeps the highest, `disadvantage` the lowest. ' +
    'The caller nets advantage and disadvantage itself.',
  // `normal` so that a "try it" form pre-filled from the example rolls the formula as written.
  example: 'normal',
});

const formulaLanguage =
  'A dice formula (docs/language.md): dice terms with their modifiers (`4d6kh3`, `2d20adv`, `1d6!`, ' +
  '`6d10>=8f1`, `4dF`, `2d6min3[fire]`), numbers, arithmetic (`(1d8+4)*2`, `2d10/d20`, `max(1d20, 10)`) ' +
  'and groups (`{4d6+3d8}kh3`, `{1d20+5, 1d20+3}kh1`)';

/** In a body: the formula may end with a tag word listed in `tags`. */
const formulaDescription = `${formulaLanguage}, optionally followed by one trailing tag word listed in \`tags\`.`;

/** In a query string, which takes no `tags`: no trailing tag word (POST takes them). */
const queryFormulaDescription = `${formulaLanguage}. A query takes no tags, so no trailing tag word: use POST for them. Send \`+\` as \`%2B\`.`;

/** A fresh formula schema each call, so no two schemas share an object that a library might mutate. */
const formulaText = (description = formulaDescription) =>
  z.string().min(LIMITS.formulaMinLength).max(LIMITS.formulaMaxLength).meta({
    description,
    example: '1d20+7',
  });

const BonusSchema = z
  .union(
    [
      // The flat-integer bound in the schema itself, so the document shows it and every
      // out-of-range integer, however large, gets the same invalid_request answer.
      z.number().min(-LIMITS.flatMaxAbs, { abort: true }).max(LIMITS.flatMaxAbs, { abort: true }).int(),
      z.string().min(LIMITS.bonusMinLength).max(LIMITS.bonusMaxLength).meta({
        description: 'A formula fragment added with a leading + implied: terms only, no tag.',
        example: '1d4',
      }),
    ],
    {
      // Read by the invalid_request message: "bonuses[1] must be an integer or ...".
      error: `must be an integer from -${LIMITS.flatMaxAbs.toLocaleString('en-US')} to ${LIMITS.flatMaxAbs.toLocaleString('en-US')} or a formula fragment of ${LIMITS.bonusMinLength} to ${LIMITS.bonusMaxLength} characters.`,
    },
  )
  .meta({ description: 'An integer flat modifier, or a formula fragment (terms only).', example: 2 });

const TagSchema = z
  .string()
  .min(LIMITS.tagMinLength)
  .max(LIMITS.tagMaxLength)
  .regex(TAG_PATTERN)
  .meta({ description: 'A word the formula may end with.', example: 'fire' });

export const RollRequestSchema = z
  .strictObject({
    formula: formulaText(),
    advantage: AdvantageStateSchema.optional(),
    bonuses: z
      .array(BonusSchema)
      .max(LIMITS.bonusesPerRoll)
      .optional()
      .meta({ description: 'Integers and formula fragments added to the roll.', example: [2, '1d4'] }),
    tags: z
      .array(TagSchema)
      .max(LIMITS.tagsPerRoll)
      .optional()
      .meta({ description: 'The trailing words the formula may end with.', example: ['fire'] }),
    receipt: strictBoolean().optional().meta({
      description: 'true: the answer carries a signed `receipt` anyone can verify (docs/trust.md).',
    }),
    table: TableIdSchema.optional().meta({
      description: "Roll at this table: always signed, appended to the table's log.",
    }),
  })
  .meta({
    id: 'RollRequest',
    description: 'One roll: a formula, optionally with advantage, bonuses and allowed tags.',
    example: { formula: '1d8+3 fire', advantage: 'normal', bonuses: [2, '1d4'], tags: ['fire'] },
  });

/** The query of GET /v1/roll: a formula and an advantage, no bonuses or tags. */
export const RollQuerySchema = z
  .strictObject({
    formula: formulaText(queryFormulaDescription),
    advantage: AdvantageStateSchema.optional(),
    receipt: z.enum(['true', 'false']).optional().meta({
      description: '`true`: the answer carries a signed `receipt` anyone can verify (docs/trust.md).',
    }),
  })
  .meta({ description: 'A formula and an optional advantage state.' });

export const BatchRollRequestSchema = z
  .strictObject({
    rolls: z
      .array(RollRequestSchema)
      .min(LIMITS.rollsPerBatchMin)
      .max(LIMITS.rollsPerBatch)
      .meta({ description: 'The rolls, rolled in order; their dice count against one batch budget.' }),
  })
  .meta({
    id: 'BatchRollRequest',
    description: 'Several rolls in one request, counted against one dice budget.',
    example: { rolls: [{ formula: '1d20+5' }, { formula: '2d6+3' }] },
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

/** Examples of the optional DieGroup fields, each from a real response (test/api/schemas-examples.test.ts). */
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

const DieThrowSchema = z
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

const DieGroupSchema = z
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

/**
 * A real `expression` (test/api/schemas-examples.test.ts): `{1d8!, 1d6!}kh1[trait]+floor((2d6+3)/2)`
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

const exactValue = () =>
  z
    .string()
    .optional()
    .meta({ description: 'The exact value as "n/d", present only when `value` is not an integer.' });

const GroupItemSchema = z
  .strictObject({
    value: z.number().meta({ description: "The item's value." }),
    exact: exactValue(),
    kept: z.boolean().meta({ description: 'Whether the group kept (counted) this item.' }),
    get node() {
      return ExpressionNodeSchema;
    },
  })
  .meta({ id: 'GroupItem', description: 'An item of a group: its value, whether it counted, and its tree.' });

const ExpressionNodeSchema: z.ZodType<ExpressionResult> = z
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
  }) as unknown as z.ZodType<ExpressionResult>;

const rollResponseExample = {
  formula: '4d6kh3+2',
  dice: [dieGroupExample],
  modifier: 2,
  modifiers: [2],
  total: 17,
  advantageState: 'normal',
} as const;

const rollFields = {
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
export const RollSchema = z.strictObject(rollFields).meta({
  id: 'Roll',
  description: 'Every die rolled, which ones counted, and the total.',
  example: rollResponseExample,
});

export const SignedRequestSchema = z
  .strictObject({
    formula: z.string(),
    advantage: AdvantageStateSchema.optional(),
    bonuses: z.array(z.union([z.number().int(), z.string()])).optional(),
    tags: z.array(z.string()).optional(),
  })
  .meta({
    id: 'SignedRequest',
    description: 'What was asked: the roll request without its receipt and table switches.',
  });

/** A receipt as the examples of the document show it (also the data of the event stream's example). */
export const receiptExample = {
  id: '019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d',
  time: '2026-11-23T20:00:00.123Z',
  kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
  request: { formula: '4d6kh3+2' },
  roll: rollResponseExample,
  signature: 'm9r3...base64url...Q',
} as const;

export const ReceiptSchema = z
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

export const RollResponseSchema = z
  .strictObject({
    ...rollFields,
    receipt: ReceiptSchema.optional().meta({
      description: 'Present when a receipt was asked for, or at a table.',
    }),
  })
  .meta({
    id: 'RollResponse',
    description: 'Every die rolled, which ones counted, and the total.',
    example: rollResponseExample,
  });

export const BatchRollResponseSchema = z
  .strictObject({
    rolls: z
      .array(RollResponseSchema)
      .meta({ description: 'One result per requested roll, in request order.' }),
  })
  .meta({
    id: 'BatchRollResponse',
    description: 'The results of a batch, in request order.',
    example: { rolls: [rollResponseExample] },
  });

export const HealthResponseSchema = z
  .strictObject({
    status: z.literal('ok'),
    version: z.string().meta({ description: 'Implementation version (semantic versioning); informational.' }),
  })
  .meta({
    id: 'HealthResponse',
    description: 'The service is alive.',
    example: { status: 'ok', version: VERSION },
  });

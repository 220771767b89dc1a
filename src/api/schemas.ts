// The zod schemas of the public API: both transports validate every input and output with them,
// the REST routes serialise with them, and trpc-to-openapi turns them into the OpenAPI components.
// Every limit comes from src/limits.ts.
import { z } from 'zod';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import { ADVANTAGE_STATES } from '../roll/types.js';
import { VERSION } from '../version.js';

const AdvantageStateSchema = z.enum(ADVANTAGE_STATES).meta({
  id: 'AdvantageState',
  description:
    'Applies to the first plain d20 term: `advantage` keeps the highest, `disadvantage` the lowest. ' +
    'The caller nets advantage and disadvantage itself.',
  // `normal` so that a "try it" form pre-filled from the example rolls the formula as written.
  example: 'normal',
});

const formulaDescription =
  'A dice formula: a signed sum of dice terms (`4d6kh3`, `2d20adv`, `1d6!`) and flat numbers, ' +
  'optionally followed by one trailing tag word listed in `tags`.';

/** A fresh formula schema each call, so no two schemas share an object that a library might mutate. */
const formulaText = () =>
  z.string().min(LIMITS.formulaMinLength).max(LIMITS.formulaMaxLength).meta({
    description: formulaDescription,
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
  })
  .meta({
    id: 'RollRequest',
    description: 'One roll: a formula, optionally with advantage, bonuses and allowed tags.',
    example: { formula: '1d8+3 fire', advantage: 'normal', bonuses: [2, '1d4'], tags: ['fire'] },
  });

/** The query of GET /v1/roll: a formula and an advantage, no bonuses or tags. */
export const RollQuerySchema = z
  .strictObject({
    formula: formulaText(),
    advantage: AdvantageStateSchema.optional(),
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

const DieGroupSchema = z
  .strictObject({
    sides: z.number().int().meta({ description: 'Sides of each die in the group.' }),
    sign: z.literal([1, -1]).meta({ description: "Sign of the group's contribution." }),
    results: z.array(z.number().int()).meta({
      description: 'Every die rolled, including dropped ones; a penetrated 1 is recorded as 0.',
    }),
    kept: z.array(z.number().int()).meta({ description: 'The dice that counted towards the total.' }),
    keptFlags: z
      .array(z.boolean())
      .meta({ description: 'Aligned index by index to `results`: whether each die was kept.' }),
    multiplier: z.number().int().meta({ description: 'K from an `xK` modifier, else 1.' }),
    total: z.number().int().meta({ description: "This group's signed contribution to the total." }),
    naturalHigh: z.boolean().meta({ description: 'One die kept, showing its maximum face.' }),
    naturalLow: z.boolean().meta({ description: 'One die kept, showing 1.' }),
  })
  .meta({
    id: 'DieGroup',
    description: 'One dice term of the formula and what it rolled.',
    example: dieGroupExample,
  });

const rollResponseExample = {
  formula: '4d6kh3+2',
  dice: [dieGroupExample],
  modifier: 2,
  modifiers: [2],
  total: 17,
  advantageState: 'normal',
} as const;

export const RollResponseSchema = z
  .strictObject({
    formula: z.string().meta({ description: 'The formula rolled, whitespace trimmed.' }),
    dice: z.array(DieGroupSchema).meta({ description: 'One entry per dice group.' }),
    modifier: z.number().int().meta({ description: 'Sum of the flat modifiers; dice are not counted.' }),
    modifiers: z.array(z.number().int()).meta({ description: 'Each flat modifier, in order.' }),
    total: z.number().int().meta({ description: 'Total of the roll.' }),
    advantageState: AdvantageStateSchema,
    tag: z
      .string()
      .optional()
      .meta({ description: 'The trailing tag word, when the formula ends with one.' }),
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

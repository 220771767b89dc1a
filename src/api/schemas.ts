// The zod schemas of the public API's requests: both transports validate every input with them,
// and trpc-to-openapi turns them into the OpenAPI components. The answers are declared once, in
// @fairdice/client/schemas (the client's types are inferred from them), and re-exported here for
// the operations, which check and serialise every answer with them. Every limit comes from
// src/limits.ts.
import {
  AdvantageStateSchema,
  HealthResponseSchema as HealthResponseShape,
  TableIdSchema,
} from '@fairdice/client/schemas';
import { z } from 'zod';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import { VERSION } from '../version.js';

export {
  BatchRollResponseSchema,
  ReceiptSchema,
  RollResponseSchema,
  receiptExample,
} from '@fairdice/client/schemas';

/**
 * true or false, never coerced: trpc-to-openapi turns top-level z.boolean() fields into coercing
 * ones (in place), which would read "receipt": "no" as true.
 */
const strictBoolean = () => z.literal([true, false]);

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
  // Read by the invalid_request message: "tags[0] must be lowercase letters a to z only.".
  .regex(TAG_PATTERN, { error: 'must be lowercase letters a to z only.' })
  .meta({ description: 'A word the formula may end with.', example: 'fire' });

/** Text a person wrote (`by`, `note`): no control characters, which no listing could show. */
const labelText = (min: number, max: number, description: string, example: string) =>
  z
    .string()
    .min(min)
    .max(max)
    // Read by the invalid_request message: "by must not contain control characters (...)".
    .regex(/^\P{Cc}*$/u, { error: 'must not contain control characters (line breaks, tabs).' })
    .meta({ description, example });

/**
 * An Idempotency-Key: 1 to 255 visible ASCII characters (docs/api.md#idempotency). REST takes it
 * as the `Idempotency-Key` header, tRPC and MCP as this input.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(LIMITS.idempotencyKeyMinLength)
  .max(LIMITS.idempotencyKeyMaxLength)
  .regex(/^[\x21-\x7e]*$/, { error: 'must be visible ASCII characters only (no spaces).' })
  .meta({
    description:
      'A key new for each roll the caller means (a UUID, say): the same key with the same request from the same caller within 24 hours answers the first answer again instead of rolling; with another request it is refused with idempotency_key_reused (docs/api.md#idempotency). Over REST: the `Idempotency-Key` header.',
    example: '7f1d2c3e-roll-1',
  });

/** One roll of a batch: a RollRequest without its own idempotency key (the batch has one). */
export const RollItemSchema = z
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
    by: labelText(
      LIMITS.byMinLength,
      LIMITS.byMaxLength,
      `Who rolls: a display name of ${LIMITS.byMinLength} to ${LIMITS.byMaxLength} characters, signed into the receipt and shown in a table's log. It labels this roll only.`,
      'Mira',
    ).optional(),
    note: labelText(
      LIMITS.noteMinLength,
      LIMITS.noteMaxLength,
      `What the roll is for: ${LIMITS.noteMinLength} to ${LIMITS.noteMaxLength} characters, signed into the receipt and shown in a table's log.`,
      'attack on the ogre',
    ).optional(),
  })
  .meta({
    id: 'BatchRollItem',
    description: 'One roll of a batch: a RollRequest without an idempotencyKey (the batch has one).',
    example: { formula: '1d20+5', by: 'Mira', note: 'attack on the ogre' },
  });

export const RollRequestSchema = RollItemSchema.extend({
  idempotencyKey: IdempotencyKeySchema.optional(),
}).meta({
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
      .array(RollItemSchema)
      .min(LIMITS.rollsPerBatchMin)
      .max(LIMITS.rollsPerBatch)
      .meta({ description: 'The rolls, rolled in order; their dice count against one batch budget.' }),
    idempotencyKey: IdempotencyKeySchema.optional().meta({
      description:
        "As RollRequest's, for the whole batch: the same key with the same batch answers the first answer again (docs/api.md#idempotency). Over REST: the `Idempotency-Key` header.",
    }),
  })
  .meta({
    id: 'BatchRollRequest',
    description: 'Several rolls in one request, counted against one dice budget.',
    example: { rolls: [{ formula: '1d20+5' }, { formula: '2d6+3' }] },
  });

/** The answer of /v1/health, with this version in its example. */
export const HealthResponseSchema = HealthResponseShape.meta({
  id: 'HealthResponse',
  example: { status: 'ok', version: VERSION },
});

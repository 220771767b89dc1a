// Every malformed id is refused with a message written for its own format (what such an id looks
// like), over REST, tRPC and MCP alike: a table id, a receipt id and a tag each say what they are.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDiceClient, isDiceError } from '../../packages/client/src/index.js';
import { describeIssues, describePath } from '../../src/api/input.js';
import { OPERATIONS } from '../../src/api/operations.js';
import { callToolOverHttp, expectError, listen, makeApp } from '../support/app.js';

const TABLE_ID = "must be a table's id as creating the table gave it: 16 to 64 letters, digits, - or _.";
const ROLL_ID =
  "must be a receipt's id: a UUIDv7 in lower case, such as 019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d.";
const TAG = 'must be lowercase letters a to z only.';

/** What each field with a format must say when its value does not have it. */
const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  table: TABLE_ID,
  id: TABLE_ID,
  rollId: ROLL_ID,
  tags: TAG,
  targets: 'must be up to 20 whole numbers, comma-separated (15,20).',
  by: 'must not contain control characters (line breaks, tabs).',
  note: 'must not contain control characters (line breaks, tabs).',
  idempotencyKey: 'must be visible ASCII characters only (no spaces).',
};

/** A value outside `pattern`: a mark most formats refuse, else a tab, else a space. */
function outside(pattern: string): string {
  const value = ['!', '\t', ' '].find((candidate) => !new RegExp(pattern, 'u').test(candidate));
  if (value === undefined) throw new Error(`no malformed value for the pattern ${pattern}`);
  return value;
}

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  pattern?: string;
};

/** For each string with a pattern in `schema`: a value holding only it, malformed, and its field's name. */
function malformed(
  schema: JsonSchema,
  defs: Record<string, JsonSchema>,
): Array<{ value: unknown; field: string }> {
  const resolve = (node: JsonSchema): JsonSchema =>
    node.$ref === undefined ? node : resolve(defs[node.$ref.replace('#/$defs/', '')]!);
  const found: Array<{ value: unknown; field: string }> = [];
  for (const [field, declared] of Object.entries(resolve(schema).properties ?? {})) {
    const property = resolve(declared);
    const items = property.items === undefined ? undefined : resolve(property.items);
    if (property.pattern !== undefined) found.push({ value: { [field]: outside(property.pattern) }, field });
    if (items?.pattern !== undefined) found.push({ value: { [field]: [outside(items.pattern)] }, field });
    for (const inner of malformed(items ?? property, defs)) {
      found.push({
        value: { [field]: items === undefined ? inner.value : [inner.value] },
        field: inner.field,
      });
    }
  }
  return found;
}

describe("the formats of the operations' inputs", () => {
  it('each have a message of their own, never the text of the validation library', () => {
    const fields = new Set<string>();
    for (const [name, operation] of Object.entries(OPERATIONS)) {
      if (operation.input === undefined) continue;
      const json = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      for (const { value, field } of malformed(json, json.$defs ?? {})) {
        const result = operation.input.safeParse(value);
        expect(result.success, `${name}: ${JSON.stringify(value)}`).toBe(false);
        const issues = result.error!.issues.filter((issue) => issue.code === 'invalid_format');
        expect(issues, `${name}: ${JSON.stringify(value)}`).toHaveLength(1);
        expect(FORMAT_MESSAGES[field], `a message for the format of ${field}`).toBeDefined();
        expect(describeIssues(issues)).toBe(`${describePath(issues[0]!.path)} ${FORMAT_MESSAGES[field]}`);
        fields.add(field);
      }
    }
    // Every format the inputs have, so none was missed by the walk above.
    expect([...fields].sort()).toEqual(Object.keys(FORMAT_MESSAGES).sort());
  });
});

describe('a malformed id', () => {
  let app: FastifyInstance;
  let origin: string;
  beforeAll(async () => {
    app = await makeApp();
    origin = await listen(app);
  });
  afterAll(() => app.close());

  const viaTrpc = async (call: Promise<unknown>) => {
    const failure = await call.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDiceError(failure), String(failure)).toBe(true);
    const { api, httpStatus } = (
      failure as { data: { api: { code: string; message: string }; httpStatus: number } }
    ).data;
    expect([httpStatus, api.code]).toEqual([400, 'invalid_request']);
    return api.message;
  };

  it('at a table to roll at says what a table id looks like', async () => {
    const rest = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d6', table: 'nope' },
    });
    expect(expectError(rest, 400, 'invalid_request')).toBe(`table ${TABLE_ID}`);
    const batch = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '1d6' }, { formula: '1d6', table: 'nope' }] },
    });
    expect(expectError(batch, 400, 'invalid_request')).toBe(`rolls[1].table ${TABLE_ID}`);
    const dice = createDiceClient(origin);
    expect(await viaTrpc(dice.rollWith.mutate({ formula: '1d6', table: 'nope' }))).toBe(`table ${TABLE_ID}`);
  });

  it('at a table, to an AI client, says the same', async () => {
    const { result } = await callToolOverHttp(app, 'table_roll', { formula: '1d6', table: 'nope' });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(result.content[0]!.text.split('\n').at(-1)!) as { error: unknown };
    expect(envelope.error).toEqual({ code: 'invalid_request', message: `table ${TABLE_ID}` });
  });

  it("in a table's log says what a table id looks like", async () => {
    expect(expectError(await app.inject({ url: '/v1/tables/nope/rolls' }), 400, 'invalid_request')).toBe(
      `id ${TABLE_ID}`,
    );
    const dice = createDiceClient(origin);
    expect(await viaTrpc(dice.tableRolls.query({ id: 'nope' }))).toBe(`id ${TABLE_ID}`);
  });

  it('of a stored roll says what a receipt id looks like', async () => {
    expect(expectError(await app.inject({ url: '/v1/rolls/xyz' }), 400, 'invalid_request')).toBe(
      `rollId ${ROLL_ID}`,
    );
    // Upper case is not how the service writes them.
    const upper = '019AB2C4-5E61-7A3B-9C2D-4F5E6A7B8C9D';
    expect(expectError(await app.inject({ url: `/v1/rolls/${upper}` }), 400, 'invalid_request')).toBe(
      `rollId ${ROLL_ID}`,
    );
    const dice = createDiceClient(origin);
    expect(await viaTrpc(dice.storedRoll.query({ rollId: 'xyz' }))).toBe(`rollId ${ROLL_ID}`);
  });

  it('a tag still says what a tag looks like', async () => {
    const rest = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d6', tags: ['Fire'] },
    });
    expect(expectError(rest, 400, 'invalid_request')).toBe(`tags[0] ${TAG}`);
    const dice = createDiceClient(origin);
    expect(await viaTrpc(dice.rollWith.mutate({ formula: '1d6', tags: ['fire', 'Ice'] }))).toBe(
      `tags[1] ${TAG}`,
    );
  });
});

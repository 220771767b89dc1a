// @fairdice/client/schemas, as a caller uses it (docs/client.md, "Schemas"): the service's real
// answers pass the schemas they were checked against, and an altered one is refused.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchRollResponseSchema,
  JwksSchema,
  ReceiptSchema,
  RollResponseSchema,
  StatsResponseSchema,
  TableCreatedSchema,
  TableRollsSchema,
} from '../../packages/client/src/shapes/index.js';
import { makeApp } from '../support/app.js';

describe('the schemas of @fairdice/client/schemas', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  const answer = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const response = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as unknown;
  };

  it("accept the service's answers as they are", async () => {
    const roll = await answer('GET', '/v1/roll?formula=4d6kh3%2B(1d8!%2B2)*2&receipt=true');
    expect(RollResponseSchema.parse(roll)).toEqual(roll);
    expect(ReceiptSchema.parse((roll as { receipt: unknown }).receipt)).toEqual(
      (roll as { receipt: unknown }).receipt,
    );
    const batch = await answer('POST', '/v1/roll/batch', {
      rolls: [{ formula: '1d20' }, { formula: '6d10>=8f1' }],
    });
    expect(BatchRollResponseSchema.parse(batch)).toEqual(batch);
    const stats = await answer('GET', '/v1/stats?formula=2d6');
    expect(StatsResponseSchema.parse(stats)).toEqual(stats);
    const table = (await answer('POST', '/v1/tables')) as { id: string };
    expect(TableCreatedSchema.parse(table)).toEqual(table);
    await answer('POST', '/v1/roll', { formula: '1d6', table: table.id });
    const log = await answer('GET', `/v1/tables/${table.id}/rolls`);
    expect(TableRollsSchema.parse(log)).toEqual(log);
    const jwks = await answer('GET', '/.well-known/jwks.json');
    expect(JwksSchema.parse(jwks)).toEqual(jwks);
  });

  it('refuse an answer with a field the service never sends, or a wrong one', async () => {
    const roll = (await answer('GET', '/v1/roll?formula=2d6')) as { dice: Array<Record<string, unknown>> };
    expect(RollResponseSchema.safeParse({ ...roll, extra: 1 }).success).toBe(false);
    const dice = [{ ...roll.dice[0], sign: 2 }];
    expect(RollResponseSchema.safeParse({ ...roll, dice }).success).toBe(false);
  });
});

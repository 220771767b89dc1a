// A stand-in for the service while it is being built: rate limit, a small OpenAPI 3.1 document and
// two roll routes, enough to prove the docs plugin end to end. Replaced by buildApp once it lands.
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { docsPlugin } from '../../src/http/docs.js';
import { LIMITS } from '../../src/limits.js';

const errorBody = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string', enum: ['invalid_formula'] }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
};

export const sampleDocument = {
  openapi: '3.1.0',
  info: { title: 'fairdice', version: '0.1.0' },
  servers: [{ url: 'http://localhost:3000' }],
  paths: {
    '/v1/roll': {
      get: {
        operationId: 'roll',
        summary: 'Roll one formula',
        parameters: [
          {
            name: 'formula',
            in: 'query',
            required: true,
            schema: { type: 'string', minLength: 1, maxLength: LIMITS.formulaMaxLength },
          },
        ],
        responses: {
          '200': {
            description: 'The roll',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { formula: { type: 'string' }, total: { type: 'integer' } },
                },
              },
            },
          },
          '400': { description: 'Bad formula', content: { 'application/json': { schema: errorBody } } },
        },
      },
      post: {
        operationId: 'rollWith',
        summary: 'Roll one formula from a JSON body',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { formula: { type: 'string', example: '1d20+7' } },
                required: ['formula'],
              },
            },
          },
        },
        responses: {
          '200': { description: 'The roll' },
          '400': { description: 'Bad formula', content: { 'application/json': { schema: errorBody } } },
        },
      },
    },
    '/v1/roll/batch': {
      post: {
        operationId: 'batch',
        summary: 'Roll several formulas',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  rolls: { type: 'array', maxItems: LIMITS.rollsPerBatch, items: { type: 'object' } },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'The rolls' } },
      },
    },
  },
};

export const fixtureRateLimitMax = LIMITS.rateLimitMax;

function rollOf(formula: string): { formula: string; total: number } | undefined {
  const match = /^(\d+)d(\d+)(?:\+(\d+))?$/.exec(formula);
  if (!match) return undefined;
  return { formula, total: Number(match[1]) * Number(match[2]) + Number(match[3] ?? 0) };
}

export async function buildFixtureApp(): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(rateLimit, { max: LIMITS.rateLimitMax, timeWindow: LIMITS.rateLimitWindowMs });
  app.get('/openapi.json', async () => sampleDocument);
  app.get<{ Querystring: { formula?: string } }>('/v1/roll', async (request, reply) => {
    const roll = rollOf(request.query.formula ?? '');
    return roll ?? reply.code(400).send({ error: { code: 'invalid_formula', message: 'not NdS' } });
  });
  app.post<{ Body: { formula?: string } }>('/v1/roll', async (request, reply) => {
    const roll = rollOf(request.body.formula ?? '');
    return roll ?? reply.code(400).send({ error: { code: 'invalid_formula', message: 'not NdS' } });
  });
  app.post('/v1/roll/batch', async () => ({ rolls: [] }));
  // As in the service, unknown paths count too.
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (_request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: 'no such path' } }),
  );
  await app.register(docsPlugin, { openapiUrl: '/openapi.json' });
  return app;
}

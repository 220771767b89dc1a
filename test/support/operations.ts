// A made-up operation for tests of what is built from an operation table (REST routes, MCP
// tools): it measures a word, and `overrides` changes any field of the entry.
import { z } from 'zod';
import type { Operation } from '../../src/api/operations.js';

const WordInput = z.strictObject({ word: z.string().max(5) });
const WordOutput = z.strictObject({ word: z.string(), length: z.number().int() });

export const entry = (overrides: Partial<Operation>): Operation => ({
  kind: 'query',
  method: 'GET',
  path: '/v1/measure',
  input: WordInput,
  output: WordOutput,
  tags: [],
  summary: 'Measure a word',
  description: 'Measures a word.',
  errors: ['invalid_request', 'internal_error'],
  run: (input) => ({
    word: (input as { word: string }).word,
    length: (input as { word: string }).word.length,
  }),
  ...overrides,
});

// The roll's shape (packages/client/src/shapes/roll.ts): the examples of the optional DieGroup
// fields in the OpenAPI document come from real responses, and a response of every form that
// adds a field (success pools, custom dice, clamps, crit ranges, labels, compounding, unique
// dice, matching sets, arithmetic, several keeps, computed counts) passes the response schema
// (strict: no undocumented field).

import { DIE_GROUP_FIELD_EXAMPLES, EXPRESSION_EXAMPLE, RollResponseSchema } from '@fairdice/client/schemas';
import { describe, expect, it } from 'vitest';
import { roll } from '../../../src/index.js';
import { scripted } from '../../support/sources.js';

const rolled = (formula: string, faces: number[]) => roll({ formula }, { random: scripted(faces) });

describe('DieGroup field examples', () => {
  it('are what the engine answers', () => {
    expect(rolled('2d6ro1', [1, 5, 6]).dice[0]!.throws).toEqual(DIE_GROUP_FIELD_EXAMPLES.throws);
    expect(rolled('1d6!p', [6, 1]).dice[0]!.throws).toEqual(DIE_GROUP_FIELD_EXAMPLES.penetratedThrows);
    expect(rolled('d{1,1,2,3,5,8}', [4]).dice[0]!.faces).toEqual(DIE_GROUP_FIELD_EXAMPLES.faces);
    expect(rolled('2d6[fire]', [1, 2]).dice[0]!.label).toBe(DIE_GROUP_FIELD_EXAMPLES.label);
    const pool = rolled('6d10>=8f1', [8, 4, 10, 1, 9, 3]).dice[0]!;
    expect(pool.successes).toBe(DIE_GROUP_FIELD_EXAMPLES.successes);
    expect(pool.failures).toBe(DIE_GROUP_FIELD_EXAMPLES.failures);
    const sets = rolled('6d6m', [3, 1, 3, 5, 1, 1]);
    expect(sets.dice[0]!.matches).toEqual(DIE_GROUP_FIELD_EXAMPLES.matches);
    expect(sets.total).toBe(14);
  });
});

describe('the response schema', () => {
  it.each([
    '6d10>=8f1',
    '4dF',
    '3d6!!',
    '2d6min3',
    '1d20cs>=19',
    '2d6[fire]+1d4[cold]',
    '1d6!p',
    '2d6r1!>=5',
    'd{-1,0,5}max2',
    '20d6mt',
    '6d6m3x2',
    '4d6u',
    '2d6!!p',
    '1d20^2 % 7',
    '2d10/d20',
    '4d10dh1dl2',
    '(4-2)d10',
  ])('accepts %s as rolled, fields in schema order', (formula) => {
    const response = roll({ formula });
    const parsed = RollResponseSchema.parse(response);
    expect(parsed).toEqual(response);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(response));
  });
});

describe('the expression example', () => {
  it('is what the engine answers', () => {
    const response = rolled('{1d8!, 1d6!}kh1[trait]+floor((2d6+3)/2)', [8, 3, 4, 5, 6]);
    expect(response.expression).toEqual(EXPRESSION_EXAMPLE);
    expect(response.total).toBe(18);
  });

  it.each([
    '(1d8+4)*2',
    '(1d8+4)/3',
    '{1d8!, 1d6!}kh1[trait]',
    '{3d6, 3d6}>=10f<5',
    '{4d6+3d8}kh3>4',
    'max(1d20, 10)-abs(-2*1d4)',
  ])('the response schema accepts %s, fields in schema order', (formula) => {
    const response = roll({ formula, bonuses: [2, 'round(1d6/4)'] });
    expect(response.expression).toBeDefined();
    const parsed = RollResponseSchema.parse(response);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(response));
  });
});

// The text line a model reads for each roll, written from real rolls with scripted dice.
import { describe, expect, it } from 'vitest';
import { batchLines, DICE_SHOWN, rollLine } from '../../src/mcp/lines.js';
import { roll } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';
import { scripted } from '../support/sources.js';

const lineOf = (request: RollRequest, faces: number[]) =>
  rollLine(roll(request, { random: scripted(faces) }));

describe('the line of a roll', () => {
  it.each([
    [{ formula: '4d6kh3+2' }, [6, 5, 2, 1], '4d6kh3+2 → 15 (6, 5, 2, 1 dropped; +2)'],
    [
      { formula: '1d20+7', advantage: 'advantage' },
      [3, 12],
      '1d20+7 with advantage → 19 (3 dropped, 12; +7)',
    ],
    [{ formula: '2d20dis' }, [1, 15], '2d20dis with disadvantage → 1 (1, 15 dropped, natural 1)'],
    [{ formula: 'd20' }, [20], 'd20 → 20 (20, natural 20)'],
    [{ formula: '10-1d4' }, [3], '10-1d4 → 7 (minus 3; +10)'],
    [{ formula: '1d6x10-2' }, [4], '1d6x10-2 → 38 (4 ×10; -2)'],
    [{ formula: '1d8+3 fire', tags: ['fire'] }, [5], '1d8+3 fire → 8 fire (5; +3)'],
    [{ formula: '1d6+1d4', bonuses: [2, '1d4'] }, [6, 1, 2], '1d6+1d4 → 11 (6; 1; 2; +2)'],
  ] as const)('%j', (request, faces, line) => {
    expect(lineOf(request as RollRequest, [...faces])).toBe(line);
  });

  it(`lists at most ${DICE_SHOWN} dice of a group and counts the rest`, () => {
    const line = lineOf(
      { formula: '100d6' },
      Array.from({ length: 100 }, () => 2),
    );
    expect(line).toBe(
      `100d6 → 200 (${Array.from({ length: DICE_SHOWN }, () => '2').join(', ')} … and 70 more)`,
    );
  });

  it('a batch is one line per roll, in order', () => {
    const random = scripted([4, 6, 1]);
    const rolls = [roll({ formula: '1d6' }, { random }), roll({ formula: '2d6+1' }, { random })];
    expect(batchLines({ rolls })).toBe('1d6 → 4 (4)\n2d6+1 → 8 (6, 1; +1)');
  });
});

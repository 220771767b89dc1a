// The text line a model reads for each roll, written from real rolls with scripted dice.
import { describe, expect, it } from 'vitest';
import {
  batchLines,
  DICE_SHOWN,
  rollLine,
  tableCreatedLine,
  tableLogLines,
  verifyLine,
} from '../../src/mcp/lines.js';
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

describe('the lines of tables and receipts', () => {
  const d20 = roll({ formula: 'd20+5' }, { random: scripted([12]) });
  const entry = (seq: number) => ({ seq, time: `2026-11-23T20:00:0${seq}.000Z`, roll: d20 });

  it('a signed roll ends with its receipt, and at a table with its entry number', () => {
    expect(rollLine({ ...d20, receipt: { id: 'r-1' } })).toBe('d20+5 → 17 (12; +5) [receipt r-1]');
    expect(rollLine({ ...d20, receipt: { id: 'r-2', seq: 3 } })).toBe(
      'd20+5 → 17 (12; +5) [table entry #3, receipt r-2]',
    );
  });

  it('a new table: its id, the tools to use it, and its limits', () => {
    expect(tableCreatedLine({ id: 'T1', maxEntries: 10, retentionDays: 2 })).toBe(
      'Table T1 created: roll there with table_roll (each roll is signed and logged for the players to check) and read its log with table_log; it holds up to 10 rolls and is forgotten 2 days after its last one.',
    );
  });

  it("a table's log: a header naming the page, then one line per entry; the rest of a long log is named", () => {
    expect(tableLogLines({ table: 'T1', entries: 2, rolls: [entry(1), entry(2)] }, {})).toBe(
      'Table T1: 2 rolls in all; #1 to #2:\n#1 2026-11-23T20:00:01.000Z d20+5 → 17 (12; +5)\n#2 2026-11-23T20:00:02.000Z d20+5 → 17 (12; +5)',
    );
    expect(tableLogLines({ table: 'T1', entries: 5, rolls: [entry(2)] }, { after: 1 }).split('\n')[0]).toBe(
      'Table T1: 5 rolls in all; #2 to #2 (call table_log with after 2 for the rest):',
    );
    expect(tableLogLines({ table: 'T1', entries: 1, rolls: [] }, {})).toBe('Table T1: 1 roll in all; none.');
    expect(tableLogLines({ table: 'T1', entries: 3, rolls: [] }, { after: 3 })).toBe(
      'Table T1: 3 rolls in all; none after #3.',
    );
  });

  it('a verdict: valid with the roll and the key, or NOT valid with the reason', () => {
    const receipt = { id: 'r-3', time: '2026-11-23T20:00:00.000Z', roll: d20, seq: 4 };
    expect(verifyLine({ valid: true, kid: 'K' }, { receipt })).toBe(
      'Valid and unaltered: d20+5 → 17 (12; +5) [table entry #4, receipt r-3], signed 2026-11-23T20:00:00.000Z by key K.',
    );
    expect(verifyLine({ valid: false, reason: 'no key with kid Q in the key set' }, { receipt })).toBe(
      'NOT valid: no key with kid Q in the key set. Do not trust this roll.',
    );
  });
});

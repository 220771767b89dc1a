// The text line a model reads for each roll, written from real rolls with scripted dice: the
// text form of the roll's description (docs/client.md), every number a reader needs to rebuild the
// total, successes and failures named.
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
import { readRollText } from '../support/roll-text.js';
import { scripted } from '../support/sources.js';

const lineOf = (request: RollRequest, faces: number[]) => {
  const random = scripted(faces);
  const line = rollLine(roll(request, { random }), request);
  expect(random.remaining).toBe(0);
  return line;
};

describe('the line of a roll', () => {
  it.each([
    [{ formula: '4d6kh3+2' }, [6, 5, 2, 1], '4d6kh3 [6 5 2 (1)] + 2 = 15'],
    [{ formula: '1d20+7', advantage: 'advantage' }, [3, 12], '1d20 [(3) 12] + 7 = 19 with advantage'],
    [{ formula: '2d20dis' }, [1, 15], '2d20dis [1 fumble (15)] = 1 with disadvantage'],
    [{ formula: 'd20' }, [20], 'd20 [20 crit] = 20'],
    [{ formula: '10-1d4' }, [3], '10 - 1d4 [3] = 7'],
    [{ formula: '1d6x10-2' }, [4], '1d6x10 [4] ×10 - 2 = 38'],
    [{ formula: '1d8+3 fire', tags: ['fire'] }, [5], '1d8 [5] + 3 = 8 fire'],
    [{ formula: '1d6+1d4', bonuses: [2, '1d4'] }, [6, 1, 2], '1d6 [6] + 1d4 [1] + 2 + 1d4 [2] = 11'],
    // Successes named, every extra die marked, each success and failure marked.
    [
      { formula: '8d10>=8!>=10' },
      [10, 9, 8, 3, 2, 1, 4, 5, 6],
      '8d10>=8!>=10 [10✓!+9✓ 8✓ 3 2 1 4 5 6] = 3 successes',
    ],
    [
      { formula: '6d10>=8f1' },
      [9, 8, 1, 5, 3, 2],
      '6d10>=8f1 [9✓ 8✓ 1✗ 5 3 2] = 2 successes - 1 failure = 1',
    ],
    // The arithmetic is kept, the written bonuses too.
    [{ formula: '(1d8+4)*2', bonuses: [2, '1d4'] }, [1, 3], '(1d8 [1] + 4) * 2 + 2 + 1d4 [3] = 15'],
    // Which item of a group was dropped.
    [{ formula: '{1d8!,1d6!}kh1+2' }, [4, 1], '{1d8! [4], 1d6! [1] dropped}kh1 + 2 = 6'],
    [{ formula: '4dF+2' }, [1, 2, 3, 3], '4dF [- 0 + +] + 2 = 3'],
  ] as const)('%j', (request, faces, line) => {
    const written = lineOf(request as RollRequest, [...faces]);
    expect(written).toBe(line);
    expect(readRollText(written).rounded).toBe(
      roll(request as RollRequest, { random: scripted([...faces]) }).total,
    );
  });

  it(`lists at most ${DICE_SHOWN} dice of a term and sums up the rest`, () => {
    const line = lineOf(
      { formula: '100d6' },
      Array.from({ length: 100 }, () => 2),
    );
    expect(line).toBe(
      `100d6 [${Array.from({ length: DICE_SHOWN }, () => '2').join(' ')} … 70 more = 200] = 200`,
    );
    expect(readRollText(line).rounded).toBe(200);
  });

  it('a batch is one line per roll, in order, with its own request', () => {
    const random = scripted([4, 6, 1, 3]);
    const requests = [{ formula: '1d6' }, { formula: '2d6+1', bonuses: ['1d4'] }];
    const rolls = requests.map((request) => roll(request, { random }));
    expect(batchLines({ rolls }, { rolls: requests })).toBe('1d6 [4] = 4\n2d6 [6 1] + 1 + 1d4 [3] = 11');
  });
});

describe('the lines of tables and receipts', () => {
  const d20 = roll({ formula: 'd20+5' }, { random: scripted([12]) });
  const entry = (seq: number) => ({ seq, time: `2026-11-23T20:00:0${seq}.000Z`, roll: d20 });

  it('a signed roll ends with its receipt, and at a table with its entry number', () => {
    expect(rollLine({ ...d20, receipt: { id: 'r-1' } })).toBe('d20 [12] + 5 = 17 [receipt r-1]');
    expect(rollLine({ ...d20, receipt: { id: 'r-2', seq: 3 } })).toBe(
      'd20 [12] + 5 = 17 [table entry #3, receipt r-2]',
    );
  });

  it('a new table: its id, the tools to use it, and its limits', () => {
    expect(tableCreatedLine({ id: 'T1', maxEntries: 10, retentionDays: 2 })).toBe(
      'Table T1 created: roll there with table_roll (each roll is signed and logged for the players to check) and read its log with table_log; it holds up to 10 rolls and is forgotten 2 days after its last one.',
    );
  });

  it("a table's log: a header naming the page, then one line per entry; the rest of a long log is named", () => {
    expect(tableLogLines({ table: 'T1', entries: 2, rolls: [entry(1), entry(2)] }, {})).toBe(
      'Table T1: 2 rolls in all; #1 to #2:\n#1 2026-11-23T20:00:01.000Z d20 [12] + 5 = 17\n#2 2026-11-23T20:00:02.000Z d20 [12] + 5 = 17',
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
      'Valid and unaltered: d20 [12] + 5 = 17 [table entry #4, receipt r-3], signed 2026-11-23T20:00:00.000Z by key K.',
    );
    expect(verifyLine({ valid: false, reason: 'no key with kid Q in the key set' }, { receipt })).toBe(
      'NOT valid: no key with kid Q in the key set. Do not trust this roll.',
    );
  });
});

describe('who, why and replays in a line', () => {
  it('names who rolled first, what for after the roll, and says when an answer is replayed', () => {
    const request = { formula: '1d20+5', by: 'Mira', note: 'attack on the ogre' };
    const rolled = roll(request, { random: scripted([14]) });
    expect(rollLine(rolled, request)).toBe('Mira: 1d20 [14] + 5 = 19 (for: attack on the ogre)');
    expect(rollLine({ ...rolled, replayed: true }, undefined)).toBe(
      '1d20 [14] + 5 = 19 (the first answer to this idempotencyKey again: nothing was rolled now)',
    );
  });
});

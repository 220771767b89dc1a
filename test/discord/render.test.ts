// The text of fairdice's Discord messages: within Discord's limits whatever the roll, user text
// shown as text, the odds chart's rows adding up, and the buttons' custom ids read back.
import type { APIEmbed } from 'discord-api-types/v10';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buttonOf, CUSTOM_ID_MAX_LENGTH, customIdOf } from '../../src/discord/commands.js';
import { formulaChoices } from '../../src/discord/interactions.js';
import {
  chartRows,
  escapeMarkdown,
  fitContent,
  headText,
  MESSAGE_LIMITS,
  oddsContent,
  reportContent,
  rollMessage,
} from '../../src/discord/render.js';
import { roll } from '../../src/roll/roll.js';
import { maxSource, scripted } from '../support/sources.js';

const links = { base: 'https://dice.example.com' };

describe('fitContent', () => {
  it('keeps a message within 2,000 characters, cut at a line end when one is near', () => {
    expect(fitContent('short')).toBe('short');
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const fitted = fitContent(lines);
    expect(fitted.length).toBeLessThanOrEqual(MESSAGE_LIMITS.content);
    expect(fitted.endsWith('\n…')).toBe(true);
    expect(lines.startsWith(fitted.slice(0, -2))).toBe(true);
    expect(fitContent('y'.repeat(5_000)).length).toBeLessThanOrEqual(MESSAGE_LIMITS.content);
  });
});

/** The characters of an embed that count against Discord's 6,000. */
const embedCharacters = (embed: APIEmbed): number =>
  (embed.title?.length ?? 0) +
  (embed.description?.length ?? 0) +
  (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0);

describe('a roll message', () => {
  it('stays within the limits for the largest rolls: content, embed, fields', () => {
    const many = Array.from({ length: 40 }, () => '25d6').join('+');
    const rolled = roll({ formula: many }, { random: maxSource() });
    const { content, embed } = rollMessage({ roll: rolled, note: 'n'.repeat(200), private: true, links });
    expect(content.length).toBeLessThanOrEqual(MESSAGE_LIMITS.content);
    expect(content).toContain(`Total **${6 * 1000}**`);
    expect(embed.description).toBe(`Total **${6 * 1000}**`);
    expect(embedCharacters(embed)).toBeLessThanOrEqual(MESSAGE_LIMITS.embedCharacters);
    const fields = embed.fields ?? [];
    expect(fields.length).toBe(MESSAGE_LIMITS.fieldsPerEmbed);
    for (const field of fields) expect(field.value.length).toBeLessThanOrEqual(1_024);
    // The first terms show all 25 dice; the last field says how many terms did not fit.
    expect(fields[0]).toEqual({
      name: '25d6',
      value: `${Array(25).fill('**6**').join(' ')} = 150`,
      inline: false,
    });
    expect(fields.at(-1)).toEqual({ name: `… ${40 - 24} more terms`, value: 'every die is in the receipt' });
  });

  it('lists as many dice of one huge term as fit, and says how many more', () => {
    const rolled = roll({ formula: '1000d6' }, { random: maxSource() });
    const { embed } = rollMessage({ roll: rolled, private: false, links });
    const field = embed.fields![0]!;
    expect(field.value.length).toBeLessThanOrEqual(1_024);
    const shown = field.value.match(/\*\*6\*\*/g)!.length;
    expect(field.value).toMatch(new RegExp(`… ${1000 - shown} more = 6000$`));
    expect(shown).toBeGreaterThan(150);
  });

  it('draws Fate dice as their faces, strikes a throw rerolled away, and names a subtracted term', () => {
    const rolled = roll({ formula: '4dF+1d20r1-1d4' }, { random: scripted([3, 1, 2, 3, 1, 20, 4]) });
    const { embed } = rollMessage({ roll: rolled, private: false, links });
    expect(embed.fields).toEqual([
      { name: '4dF', value: '**⊞** **⊟** **☐** **⊞** = 1', inline: true },
      { name: '1d20r1', value: '~~1~~→**20 crit** = 20', inline: true },
      { name: '−1d4', value: '**4** = -4', inline: true },
    ]);
    expect(embed.description).toBe('Total **17**');
  });

  it('shows a note as text: no markdown, no mention, one line', () => {
    expect(escapeMarkdown('**bold** _it_ `code` <@123> @everyone\n# title [l](u) ~s~ |x| > q')).toBe(
      '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\<\\@123\\> \\@everyone \\# title \\[l\\]\\(u\\) \\~s\\~ \\|x\\| \\> q',
    );
  });
});

describe('chartRows', () => {
  const uniform = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => ({ total: from + i, probability: 1 / (to - from + 1) }));

  it('has one row per total when they are few', () => {
    const rows = chartRows(uniform(1, 20));
    expect(rows.map((row) => row.label)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
  });

  it('groups many totals in at most 20 rows whose chances add up to the whole', () => {
    fc.assert(
      fc.property(fc.integer({ min: 21, max: 3_000 }), fc.integer({ min: -500, max: 500 }), (count, from) => {
        const rows = chartRows(uniform(from, from + count - 1));
        expect(rows.length).toBeLessThanOrEqual(20);
        expect(rows.reduce((sum, row) => sum + row.probability, 0)).toBeCloseTo(1, 9);
      }),
      { numRuns: 50 },
    );
  });

  it('says the tails beyond the range where the chance lies', () => {
    // A long thin tail: the chart covers where nearly all the chance is, and sums up the rest.
    const outcomes = [
      ...uniform(1, 30).map((outcome) => ({ ...outcome, probability: outcome.probability * 0.9998 })),
      ...Array.from({ length: 200 }, (_, i) => ({ total: 31 + i, probability: 0.0002 / 200 })),
    ];
    const rows = chartRows(outcomes);
    expect(rows.at(-1)!.label).toMatch(/^> \d+$/);
    expect(rows.at(-1)!.probability).toBeLessThanOrEqual(0.0005);
    expect(rows.reduce((sum, row) => sum + row.probability, 0)).toBeCloseTo(1, 9);
  });
});

describe('the odds message', () => {
  it('writes tiny chances as "< 0.0001%", as the page does, never in e-notation', () => {
    // A die that shows 1 all but once in a billion rolls, and its explosion tail.
    const tiny = 1e-9;
    const content = oddsContent({
      formula: '1d2',
      advantageState: 'normal',
      min: 1,
      max: 2,
      mean: 1 + tiny,
      sd: Math.sqrt(tiny * (1 - tiny)),
      percentiles: null,
      listing: 'full',
      outcomes: [
        { total: 1, atLeast: 1, probability: 1 - tiny },
        { total: 2, atLeast: tiny, probability: tiny },
      ],
      truncation: { depth: 20, tailProbability: 3e-12 },
    });
    expect(content).toContain('rolls going deeper: < 0.0001%.');
    expect(content).toContain('1 ████████████████████ > 99.9999%');
    expect(content).toMatch(/\n2 \S* +< 0\.0001%\n/);
    expect(content).not.toMatch(/\de[-+]\d/);
  });
});

describe('button custom ids', () => {
  it('carry the formula and whether the roll was private, and read back', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 93 }), fc.boolean(), (formula, privately) => {
        const roll = customIdOf({ action: 'roll', formula, private: privately });
        expect(roll).toBeDefined();
        expect(roll!.length).toBeLessThanOrEqual(CUSTOM_ID_MAX_LENGTH);
        expect(buttonOf(roll!)).toEqual({ action: 'roll', formula, private: privately });
        expect(buttonOf(customIdOf({ action: 'odds', formula })!)).toEqual({ action: 'odds', formula });
      }),
    );
    expect(customIdOf({ action: 'roll', formula: 'x'.repeat(94), private: false })).toBeUndefined();
    expect(buttonOf('roll:-:')).toBeUndefined();
    expect(buttonOf('something')).toBeUndefined();
  });
});

describe('formulaChoices', () => {
  it('offers at most 25 choices, each within the limits', () => {
    for (const typed of ['', '1', '1d', '4d6kh3', `1d20+${'1'.repeat(120)}`, 'd20 to hit']) {
      const choices = formulaChoices(typed, 1000);
      expect(choices.length).toBeLessThanOrEqual(MESSAGE_LIMITS.autocompleteChoices);
      for (const choice of choices) {
        expect(choice.name.length).toBeLessThanOrEqual(MESSAGE_LIMITS.choiceName);
        expect(choice.value.length).toBeLessThanOrEqual(MESSAGE_LIMITS.choiceValue);
      }
    }
    expect(formulaChoices('d20 to hit', 1000)[0]!.name).toMatch(/^d20 to hit ⚠ /);
    expect(formulaChoices('2000d6', 1000)[0]!.name).toMatch(/^2000d6 ⚠ /);
  });
});

describe('a signed head and a luck report', () => {
  it('names the signed head: entries, last hash, time in the reader’s zone, key', () => {
    const head = {
      entries: 3,
      lastHash: 'ab'.repeat(32),
      time: '2026-11-28T04:00:00.000Z',
      kid: 'k'.repeat(43),
    };
    expect(headText(head)).toBe(
      `Signed head: 3 entries, the last hashing to \`${'ab'.repeat(8)}…\`, signed <t:${Date.parse(head.time) / 1000}:f> with key \`${'k'.repeat(12)}…\`.`,
    );
  });

  it('reports how lucky the table was, per roller, with the verdict and the unusual rolls, within a message', () => {
    const rated = (seq: number, formula: string, total: number, midP: number, by?: string) => ({
      seq,
      time: '2026-11-28T04:00:00.000Z',
      formula,
      ...(by === undefined ? {} : { by }),
      status: 'rated' as const,
      total,
      midP,
      midPExact: '1/2',
    });
    const report = {
      covered: { from: 1, to: 12, rolls: 10, rated: 8, sealed: 1, notRated: 1 },
      rolls: [
        rated(1, '1d20', 20, 0.975, 'Alice (discord:1)'),
        rated(2, '1d20', 1, 0.025),
        rated(3, '1d6', 6, 11 / 12),
      ],
      byRoller: [
        { by: 'Alice (discord:1)', rated: 5, meanMidP: 0.71 },
        { by: null, rated: 3, meanMidP: 0.4 },
        { by: 'Bob', rated: 1, meanMidP: 0.12 },
        { by: 'Carol', rated: 1, meanMidP: 0.03 },
      ],
      overall: { rated: 8, meanMidP: 0.594 },
      test: {
        name: 'mid-P z-test' as const,
        z: 0.5,
        pValue: 0.6,
        verdict: 'consistent' as const,
        sentence: 'Consistent with fair dice.',
      },
    };
    const content = reportContent(report, 'tbl', links);
    expect(content.split('\n')).toEqual([
      "How lucky this channel's table was: entries #1 to #12, 10 rolls, 8 rated, 1 sealed (not rated until revealed), 1 not rated.",
      'The table rolled at the **59th percentile** on average (50th is average luck).',
      '- Alice \\(discord\\:1\\): 71st percentile over 5 rolls',
      '- rolls naming nobody: 40th percentile over 3 rolls',
      '- Bob: 12th percentile over 1 roll',
      '- Carol: 3rd percentile over 1 roll',
      'Consistent with fair dice.',
      'Rolls in the outer tenth of their odds:',
      '- #1 `1d20` = 20 by Alice \\(discord\\:1\\): 98th percentile',
      '- #2 `1d20` = 1: 3rd percentile',
      'Every roll, in your browser: [table tbl](<https://dice.example.com/?table=tbl>)',
    ]);
    const many = {
      ...report,
      rolls: Array.from({ length: 1000 }, (_, i) =>
        rated(i + 1, `1d20+${'1'.repeat(150)}`, 20, 0.99, 'x'.repeat(32)),
      ),
      byRoller: Array.from({ length: 400 }, (_, i) => ({
        by: `roller ${i} ${'x'.repeat(90)}`,
        rated: 1,
        meanMidP: 0.5,
      })),
    };
    const long = reportContent(many, 'tbl', links);
    expect(long.length).toBeLessThanOrEqual(MESSAGE_LIMITS.content);
    expect(long).toContain('- and 385 more rollers');
  });
});

// The playground's --stats view: the exact distribution of a formula's total as a terminal
// histogram of the totals where the mass is (at least 99.9 % of it, as the page draws it), what
// lies beyond with its chance, the mean, the standard deviation, the percentiles and any
// truncation (docs/stats.md explains the fields).

import { chanceOf, oddsWindow, percentText } from '../packages/client/src/describe.js';
import type { StatsResponse } from '../src/stats/distribution.js';

/** Rows of the histogram at most; more totals are shown in equal ranges. */
const ROWS = 32;
const BAR = 48;

export function statsLines(answer: StatsResponse): string[] {
  const lines = ['exact distribution of the total'];
  if (answer.listing === 'summary') {
    lines.push('  (too many totals to list: summary only)');
  } else {
    // The far tails would only add empty rows: what they hold is said below the bars.
    const [first, last] = oddsWindow(answer.outcomes);
    const outcomes = answer.outcomes.slice(first, last + 1);
    const per = Math.ceil(outcomes.length / ROWS);
    const rows: Array<{ label: string; probability: number }> = [];
    for (let i = 0; i < outcomes.length; i += per) {
      const slice = outcomes.slice(i, i + per);
      const first = slice[0]!.total;
      const last = slice[slice.length - 1]!.total;
      rows.push({
        label: first === last ? `${first}` : `${first}..${last}`,
        probability: slice.reduce((sum, o) => sum + o.probability, 0),
      });
    }
    const top = Math.max(...rows.map((r) => r.probability));
    const labelWidth = Math.max(...rows.map((r) => r.label.length));
    for (const { label, probability } of rows) {
      const bar = '#'.repeat(Math.round((probability / top) * BAR));
      lines.push(`  ${label.padStart(labelWidth)} ${(probability * 100).toFixed(3).padStart(7)}% ${bar}`);
    }
    const beyond = (from: number, to: number, where: string) => {
      const { probability, exact } = chanceOf(answer, from, to);
      const range = `${answer.outcomes[from]!.total}..${answer.outcomes[to]!.total}`;
      lines.push(
        `  ${where} (${range}, not drawn): ${percentText(probability)}${exact === undefined ? '' : `, exactly ${exact}`}`,
      );
    };
    if (first > 0) beyond(0, first - 1, `below ${outcomes[0]!.total}`);
    if (last < answer.outcomes.length - 1)
      beyond(last + 1, answer.outcomes.length - 1, `above ${outcomes.at(-1)!.total}`);
  }
  lines.push(
    `  min ${answer.min}  max ${answer.max}  mean ${round(answer.mean)} (${short(answer.meanExact)})  sd ${round(answer.sd)}`,
  );
  if (answer.percentiles !== null) {
    const p = answer.percentiles;
    lines.push(`  percentiles  5%: ${p[5]}  25%: ${p[25]}  50%: ${p[50]}  75%: ${p[75]}  95%: ${p[95]}`);
  }
  if (answer.truncation !== null) {
    const t = answer.truncation;
    lines.push(
      `  explosion chains listed to depth ${t.depth}; the rest has probability ${t.tailProbability.toExponential(3)}`,
    );
  }
  if (answer.listing === 'probabilities') lines.push('  (counts omitted: too large to list)');
  return lines;
}

const round = (x: number): string => String(Math.round(x * 10_000) / 10_000);

/** A long exact fraction is cut to its ends. */
const short = (text: string): string =>
  text.length <= 40 ? text : `${text.slice(0, 18)}…${text.slice(-18)}`;

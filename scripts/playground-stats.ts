// The playground's --stats view: the exact distribution of a formula's total as a terminal
// histogram, with the mean, the standard deviation, the percentiles and any truncation
// (docs/stats.md explains the fields).

import type { StatsResponse } from '../src/stats/distribution.js';

/** Rows of the histogram at most; more totals are shown in equal ranges. */
const ROWS = 32;
const BAR = 48;

export function statsLines(answer: StatsResponse): string[] {
  const lines = ['exact distribution of the total'];
  if (answer.listing === 'summary') {
    lines.push('  (too many totals to list: summary only)');
  } else {
    // The far tails (a millionth at each end) would only add empty rows.
    const outcomes = answer.outcomes.filter((o) => o.atMost >= 1e-6 && o.atLeast >= 1e-6);
    const hidden = answer.outcomes.length - outcomes.length;
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
    if (hidden > 0) lines.push(`  (${hidden} rarer totals at the ends not shown)`);
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

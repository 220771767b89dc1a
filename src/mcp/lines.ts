// The one line an AI client reads, and may quote, for each tool result (docs/mcp.md): the
// formula, the total, then every die and modifier that made it, e.g.
// `4d6kh3+2 → 15 (6, 5, 2, 1 dropped; +2)`. Plain text from the response's own fields, no SDK.
import type { DieGroup, RollResponse } from '../roll/types.js';

/** Dice listed per group before the rest is summarised ("… and 970 more"): a line stays a line. */
export const DICE_SHOWN = 30;

const signed = (n: number): string => (n < 0 ? `-${-n}` : `+${n}`);

function groupText(group: DieGroup): string {
  const shown = group.results.slice(0, DICE_SHOWN).map((face, index) => {
    return group.keptFlags[index] === false ? `${face} dropped` : String(face);
  });
  const rest = group.results.length - shown.length;
  let text = rest > 0 ? `${shown.join(', ')} … and ${rest} more` : shown.join(', ');
  if (group.multiplier !== 1) text = `${text} ×${group.multiplier}`;
  if (group.sign < 0) text = `minus ${text}`;
  if (group.sides === 20 && group.naturalHigh) text = `${text}, natural 20`;
  else if (group.sides === 20 && group.naturalLow) text = `${text}, natural 1`;
  return text;
}

/** `1d20+7 with advantage → 19 (12 dropped, 12; +7)`; a tag follows the total (`→ 7 fire`). */
export function rollLine(roll: RollResponse): string {
  const parts = [...roll.dice.map(groupText), ...roll.modifiers.map(signed)];
  const advantage = roll.advantageState === 'normal' ? '' : ` with ${roll.advantageState}`;
  const tag = roll.tag === undefined ? '' : ` ${roll.tag}`;
  return `${roll.formula}${advantage} → ${roll.total}${tag} (${parts.join('; ')})`;
}

/** One line per roll, in request order. */
export const batchLines = (batch: { rolls: readonly RollResponse[] }): string =>
  batch.rolls.map(rollLine).join('\n');

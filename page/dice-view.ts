// Draws one roll's dice as its `throws` describe them (docs/api.md, DieGroup): each physical
// throw is one chip, marked kept or dropped, rerolled away, or an explosion extra of its die.
import type { DieGroup, RollResponse } from './types.js';

export type ChipState = 'kept' | 'dropped' | 'rerolled';

interface Chip {
  value: number;
  face: number | undefined;
  kind: 'roll' | 'reroll' | 'explode';
  state: ChipState;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** `keptFlags` when the server sends them, else the kept multiset matched against `results`. */
function keptFlagsOf(group: DieGroup): boolean[] {
  if (group.keptFlags && group.keptFlags.length === group.results.length) return group.keptFlags;
  const left = [...group.kept];
  return group.results.map((value) => {
    const at = left.indexOf(value);
    if (at < 0) return false;
    left.splice(at, 1);
    return true;
  });
}

/** The chips of each die, in rolling order: the die's throws, then its explosion extras. */
function diceOf(group: DieGroup): Chip[][] {
  const flags = keptFlagsOf(group);
  const throws = group.throws;
  if (!throws || group.compounded) {
    return group.results.map((value, index) => [
      { value, face: undefined, kind: 'roll', state: flags[index] ? 'kept' : 'dropped' },
    ]);
  }
  const dice: Chip[][] = [];
  throws.forEach((thrown, index) => {
    const next = throws[index + 1];
    const rerolledAway = next !== undefined && next.die === thrown.die && next.kind === 'reroll';
    const chip: Chip = {
      value: group.results[index] ?? thrown.value,
      face: thrown.face,
      kind: thrown.kind,
      state: rerolledAway ? 'rerolled' : flags[index] ? 'kept' : 'dropped',
    };
    dice[thrown.die] ??= [];
    dice[thrown.die]!.push(chip);
  });
  return dice.filter((die) => die !== undefined);
}

const STATE_WORDS: Record<ChipState, string> = {
  kept: 'kept',
  dropped: 'dropped',
  rerolled: 'rerolled away',
};

function chipElement(chip: Chip, sides: number): HTMLElement {
  const node = el('span', `chip ${chip.state} ${chip.kind}`, String(chip.value));
  node.dataset.value = String(chip.value);
  node.dataset.state = chip.state;
  node.dataset.kind = chip.kind;
  const words = [String(chip.value), STATE_WORDS[chip.state]];
  if (chip.kind === 'explode') words.push('explosion extra');
  if (chip.kind === 'reroll') words.push('a reroll');
  if (chip.face !== undefined && chip.face !== chip.value) words.push(`face ${chip.face}`);
  node.title = `d${sides}: ${words.join(', ')}`;
  return node;
}

function groupName(group: DieGroup, count: number): string {
  const kind = group.faces ? `d{${group.faces.join(',')}}` : `d${group.sides}`;
  return `${group.sign < 0 ? '−' : ''}${count}${kind}${group.multiplier !== 1 ? ` ×${group.multiplier}` : ''}`;
}

/** Replaces the content of `target` with one row per dice group of `roll`. */
export function renderDice(target: HTMLElement, roll: RollResponse): void {
  const groups = el('ul', 'groups');
  roll.dice.forEach((group, groupIndex) => {
    const dice = diceOf(group);
    const name = groupName(group, dice.length);
    const row = el('li', 'group');
    row.dataset.group = String(groupIndex);
    const head = el('p', 'group-head');
    head.append(el('span', 'group-name', name));
    if (group.label) head.append(el('span', 'badge label', group.label));
    if (group.compounded) head.append(el('span', 'badge', 'compounded'));
    if (group.naturalHigh) head.append(el('span', 'badge nat', 'natural max'));
    if (group.naturalLow) head.append(el('span', 'badge nat', 'natural min'));
    head.append(el('span', 'group-total', `= ${group.total}`));
    row.append(head);

    const list = el('ul', 'dice');
    list.setAttribute('aria-label', `Dice of ${name}`);
    for (const chips of dice) {
      const die = el('li', 'die');
      chips.forEach((chip, index) => {
        if (index > 0) die.append(el('span', 'arrow', chip.kind === 'explode' ? '+' : '→'));
        die.append(chipElement(chip, group.sides));
      });
      list.append(die);
    }
    row.append(list);

    if (group.successes !== undefined || group.failures !== undefined) {
      const counts = [`${group.successes ?? 0} successes`];
      if (group.failures !== undefined) counts.push(`${group.failures} failures`);
      row.append(el('p', 'counts', counts.join(', ')));
    }
    if (group.matches !== undefined) {
      const sets =
        group.matches.length === 0 ? 'no matching set' : `matching sets of ${group.matches.join(', ')}`;
      row.append(el('p', 'counts matches', sets));
    }
    groups.append(row);
  });
  target.replaceChildren(groups);
}

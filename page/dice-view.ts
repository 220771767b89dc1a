// Draws one roll from its description (packages/client/src/describe.ts, docs/client.md): the
// roll in formula order (each term as written with its dice, the numbers, operators, functions
// and groups between them), every die with its marks, and the total. Marks are shown by shape,
// colour and words: a screen reader hears each die's words, and no mark is told by colour alone.
import {
  countsText,
  type DescribedDie,
  type DescribedItem,
  type DescribedThrow,
  type DiceTerm,
  type Mark,
  piecesOf,
  type RollDescription,
  type RollNode,
} from '../packages/client/src/describe.js';

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

/** Text for a screen reader only. */
const hidden = (text: string): HTMLSpanElement => el('span', 'sr', text);

/** What each mark says in words, in the order they are spoken. */
const MARK_WORDS: ReadonlyArray<[Mark, string]> = [
  ['rerolled', 'rerolled away'],
  ['extra', 'explosion extra'],
  ['penetrated', 'one less than the face (penetrating)'],
  ['clamped', 'clamped by min or max'],
  ['exploded', 'exploded'],
  ['success', 'success'],
  ['failure', 'failure'],
  ['crit', 'critical (natural high)'],
  ['fumble', 'fumble (natural low)'],
];

/** A Fate face as a player reads it: −, blank, +. */
function faceShown(value: number, term: DiceTerm): string {
  if (!term.fate) return String(value);
  return value > 0 ? '+' : value < 0 ? '−' : '';
}

function faceSaid(value: number, term: DiceTerm): string {
  if (!term.fate) return String(value);
  return value > 0 ? 'plus' : value < 0 ? 'minus' : 'blank';
}

/** How a throw stands: counted, not counted (its die dropped), or replaced by a reroll. */
function stateOf(die: DescribedDie, thrown: DescribedThrow): 'kept' | 'dropped' | 'rerolled' {
  if (thrown.marks.includes('rerolled')) return 'rerolled';
  return die.kept ? 'kept' : 'dropped';
}

function chipOf(die: DescribedDie, thrown: DescribedThrow, term: DiceTerm): HTMLElement {
  const state = stateOf(die, thrown);
  const marks = [
    ...thrown.marks,
    ...(state === 'kept' && !die.marks.includes('compounded') ? die.marks : []),
  ];
  const chip = el('span', `chip ${state} ${thrown.kind}`);
  for (const mark of marks) chip.classList.add(`m-${mark}`);
  if (term.successes !== undefined) chip.classList.add('counting');
  chip.dataset.value = String(thrown.value);
  chip.dataset.state = state;
  chip.dataset.kind = thrown.kind;
  chip.dataset.marks = [...new Set(marks)].join(' ');
  const shown = el('span', 'face', faceShown(thrown.value, term));
  shown.setAttribute('aria-hidden', 'true');
  if (thrown.face !== undefined) {
    // The face that came up, small, before the value it was recorded as.
    const came = el('span', 'came', faceShown(thrown.face, term));
    came.setAttribute('aria-hidden', 'true');
    chip.append(came);
  }
  chip.append(shown);
  const words = [faceSaid(thrown.value, term)];
  if (thrown.face !== undefined) words.push(`rolled as ${faceSaid(thrown.face, term)}`);
  words.push(state === 'rerolled' ? 'rerolled away' : state);
  for (const [mark, said] of MARK_WORDS) if (mark !== 'rerolled' && marks.includes(mark)) words.push(said);
  chip.append(hidden(words.join(', ')));
  chip.title = words.join(', ');
  return chip;
}

function dieOf(die: DescribedDie, term: DiceTerm): HTMLLIElement {
  const item = el('li', `die ${die.kept ? 'kept' : 'dropped'}${die.throws.length > 1 ? ' chain' : ''}`);
  die.throws.forEach((thrown, index) => {
    if (index > 0) {
      const before = die.throws[index - 1]!;
      const joint = el('span', 'joint', before.marks.includes('rerolled') ? '→' : '+');
      joint.setAttribute('aria-hidden', 'true');
      item.append(joint);
    }
    item.append(chipOf(die, thrown, term));
  });
  if (
    die.marks.includes('compounded') &&
    die.throws.filter((t) => !t.marks.includes('rerolled')).length > 1
  ) {
    const merged = el('span', 'merged');
    merged.dataset.value = String(die.value);
    for (const mark of die.marks) merged.classList.add(`m-${mark}`);
    merged.append(`= ${faceShown(die.value, term)}`);
    const counted = die.marks.filter((m) => m === 'success' || m === 'failure');
    merged.append(
      hidden(`compounded into ${die.value}${counted.length > 0 ? `, ${counted.join(', ')}` : ''}`),
    );
    item.append(merged);
  } else if (die.marks.includes('compounded') && die.kept) {
    // One throw: the die's marks (success, failure) are on its only chip.
    const chip = item.querySelector('.chip');
    for (const mark of die.marks) chip?.classList.add(`m-${mark}`);
  }
  for (const mark of ['crit', 'fumble'] as const) {
    if (die.marks.includes(mark)) item.append(el('span', `badge ${mark}`, mark));
  }
  return item;
}

/** A term as a card: its notation as written, its dice, what it contributes. */
function termCard(term: DiceTerm, signShown: boolean): HTMLElement {
  const card = el('span', 'term');
  card.dataset.group = String(term.group);
  const head = el('span', 'term-head');
  const name = el('code', 'term-name', `${signShown && term.sign < 0 ? '−' : ''}${term.notation}`);
  head.append(name);
  if (term.label !== undefined) head.append(el('span', 'badge label', term.label));
  if (term.advantage !== undefined) head.append(el('span', 'badge', `with ${term.advantage}`));
  let worth: string;
  if (term.successes !== undefined) worth = countsText(term.successes, term.failures);
  else if (term.matches?.total) worth = `${term.matches.values.length} sets`;
  else worth = `= ${Math.abs(term.total)}`;
  if (term.multiplier !== 1 && term.successes === undefined) worth = `×${term.multiplier} ${worth}`;
  head.append(el('span', 'term-total', worth));
  card.append(head);
  const list = el('ul', 'dice');
  list.setAttribute('aria-label', `Dice of ${term.notation}`);
  for (const die of term.dice) list.append(dieOf(die, term));
  card.append(list);
  if (term.matches !== undefined) {
    const values = term.matches.values;
    card.append(
      el(
        'span',
        'counts matches',
        values.length === 0 ? 'no matching set' : `matching sets of ${values.join(', ')}`,
      ),
    );
  }
  if (term.multiplier !== 1 && term.successes !== undefined)
    card.append(el('span', 'counts', `×${term.multiplier}`));
  return card;
}

const OPERATOR_SHOWN: Record<string, [string, string]> = {
  '+': ['+', 'plus'],
  '-': ['−', 'minus'],
  '*': ['×', 'times'],
  '/': ['÷', 'divided by'],
  '%': ['mod', 'modulo'],
  '^': ['^', 'to the power'],
};

function operator(symbol: string): HTMLElement {
  const [shown, said] = OPERATOR_SHOWN[symbol] ?? [symbol, symbol];
  const node = el('span', 'op');
  const visible = el('span', '', shown);
  visible.setAttribute('aria-hidden', 'true');
  node.append(visible, hidden(said));
  return node;
}

function punctuation(text: string): HTMLElement {
  const node = el('span', 'punct', text);
  node.setAttribute('aria-hidden', 'true');
  return node;
}

function itemOf(item: DescribedItem): HTMLElement {
  const node = el('span', `item ${item.kept ? 'kept' : 'dropped'}`);
  node.dataset.kept = String(item.kept);
  node.append(...nodeParts(item.node, false));
  const notes: string[] = [];
  if (!item.kept) notes.push('dropped');
  if (item.success) notes.push('✓ success');
  if (item.failure) notes.push('✗ failure');
  if (notes.length > 0)
    node.append(
      el(
        'span',
        `item-note${item.success ? ' success' : ''}${item.failure ? ' failure' : ''}`,
        notes.join(' '),
      ),
    );
  return node;
}

/** The elements of a node, in formula order. */
function nodeParts(node: RollNode, unsigned: boolean): Node[] {
  switch (node.kind) {
    case 'dice':
      return [termCard(node.term, !unsigned)];
    case 'number':
      return [el('span', 'num', String(unsigned ? -node.value : node.value).replace('-', '−'))];
    case 'function': {
      const call = el('span', 'call');
      call.append(el('span', 'fn', node.name), punctuation('('));
      node.arguments.forEach((argument, index) => {
        if (index > 0) call.append(punctuation(','));
        call.append(...nodeParts(argument, false));
      });
      call.append(punctuation(')'), el('span', 'fn-value', `= ${node.exact ?? node.value}`));
      return [call];
    }
    case 'group': {
      const box = el('span', `group-box${node.pool ? ' pool' : ''}`);
      box.append(punctuation('{'));
      node.items.forEach((item, index) => {
        if (index > 0) box.append(punctuation(','));
        box.append(itemOf(item));
      });
      box.append(punctuation('}'));
      if (node.modifiers !== '') box.append(el('code', 'group-mods', node.modifiers));
      if (node.label !== undefined) box.append(el('span', 'badge label', node.label));
      const worth =
        node.successes !== undefined
          ? countsText(node.successes, node.failures)
          : `= ${node.exact ?? node.value}`;
      box.append(el('span', 'term-total', worth));
      return [box];
    }
    case 'operation': {
      const out: Node[] = [];
      let pending: HTMLElement | undefined;
      for (const piece of piecesOf(node)) {
        if (piece.kind === 'operator') {
          pending = operator(piece.operator);
          continue;
        }
        const parts = nodeParts(piece.node, piece.unsigned);
        if (piece.parentheses) parts.splice(0, parts.length, punctuation('('), ...parts, punctuation(')'));
        if (pending !== undefined) {
          // An operator never ends a line: it wraps with the first part of its operand.
          const pair = el('span', 'pair');
          pair.append(pending, parts.shift()!);
          parts.unshift(pair);
          pending = undefined;
        }
        out.push(...parts);
      }
      return out;
    }
  }
}

/** Replaces the content of `target` with the roll: its terms and arithmetic in formula order. */
export function renderRoll(target: HTMLElement, description: RollDescription): void {
  const flow = el('div', 'flow');
  flow.setAttribute('role', 'group');
  flow.setAttribute('aria-label', 'The roll, term by term');
  flow.append(...nodeParts(description.root, false));
  target.replaceChildren(flow);
}

/** The words after the total: the counts it is made of, or the exact value it rounds down. */
export function totalNote(description: RollDescription): string {
  const { counting } = description;
  if (counting !== undefined) {
    const counted = countsText(counting.successes, counting.failures);
    return counting.failures === undefined ? counted.replace(/^\d+ /, '') : `(${counted})`;
  }
  return description.exact === undefined ? '' : `(${description.exact}, rounded down)`;
}

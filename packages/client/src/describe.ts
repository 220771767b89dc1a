// One description of a roll that every face renders (the page, the MCP tool lines, the
// playground, the React example): from a RollResponse, in formula order, each term as written,
// each die with every mark that applies, the numbers, operators, functions and groups between
// them, and the total; and a one-line text form from which a reader can rebuild the total
// (`4d6kh3 [6 5 3 (1)] + 2 = 16`). docs/client.md describes it. Browser-safe and dependency-free.
import {
  type GroupModifier,
  meets,
  type Notation,
  readNotation,
  type TermModifier,
  type WrittenDice,
} from './notation.js';
import type { AdvantageState, DieGroup, RollResponse } from './types.js';

export type { ComparePoint, GroupModifier, TermModifier } from './notation.js';
export { chanceOf, ODDS_TAIL, oddsWindow, percentText } from './odds.js';

/** What a description reads of a roll: a RollResponse, or the `roll` of a receipt. */
export type DescribedRoll = Pick<
  RollResponse,
  'formula' | 'dice' | 'modifiers' | 'total' | 'advantageState' | 'tag' | 'expression'
>;

type ResponseNode = NonNullable<RollResponse['expression']>;
type ResponseThrow = NonNullable<DieGroup['throws']>[number];

/** The request a roll answered, when the caller has it: it names the written text of string bonuses. */
export interface DescribedRequest {
  bonuses?: ReadonlyArray<number | string> | undefined;
  advantage?: AdvantageState | undefined;
}

/**
 * A mark on a die or on one of its throws:
 * - `kept` / `dropped` (die): it counts towards the total, or keep/drop (or advantage) left it out;
 * - `rerolled` (throw): `r`, `ro` or `u` threw the die again; this throw never counts;
 * - `extra` (throw): an explosion extra (`!`, `!p`, `!!`, `!!p`);
 * - `exploded` (throw): it met the explode point and threw the next extra;
 * - `penetrated` (throw): an extra of `!p`/`!!p`, recorded one lower than the face that came up;
 * - `clamped` (throw): `min`/`max` changed the face that came up (the throw's `face`);
 * - `compounded` (die): `!!` merged its throws into one value;
 * - `success` / `failure` (a throw, or with `!!` the merged die): it met the success / failure point;
 * - `crit` / `fumble` (die): on a d20, or a term naming `cs` / `cf`, the one kept die shows the top /
 *   bottom face or meets `cs` / `cf` (the response's `naturalHigh` / `naturalLow`).
 */
export type Mark =
  | 'kept'
  | 'dropped'
  | 'rerolled'
  | 'extra'
  | 'exploded'
  | 'penetrated'
  | 'clamped'
  | 'compounded'
  | 'success'
  | 'failure'
  | 'crit'
  | 'fumble';

/** One physical throw of a die. */
export interface DescribedThrow {
  /** The recorded value: after min/max, and one lower for a penetrating extra. */
  value: number;
  /** The face that came up, when min/max or penetration changed it. */
  face: number | undefined;
  kind: 'roll' | 'reroll' | 'explode';
  marks: Mark[];
}

/** One die: its throws in order (rerolled-away throws, the throw that stood, its extras). */
export interface DescribedDie {
  /** What the die is worth: the throw that stood plus its extras, or the merged value with `!!`. */
  value: number;
  kept: boolean;
  throws: DescribedThrow[];
  marks: Mark[];
}

/** One dice term of the roll: `dice[group]` of the response. */
export interface DiceTerm {
  /** Its index in the response's `dice`. */
  group: number;
  /** The term as written, without its label (`4d6kh3`, `8d10>=8!>=10`, `4dF`); see `written`. */
  notation: string;
  /**
   * True when `notation` is the written text. False for a string bonus's term when the request
   * was not given (a response does not carry its bonuses): `notation` is then `NdS` from the dice.
   */
  written: boolean;
  label: string | undefined;
  /** Fate dice (`dF`): faces -1, 0, +1, shown as −, blank, +. */
  fate: boolean;
  sides: number;
  faces: number[] | undefined;
  sign: 1 | -1;
  multiplier: number;
  /** The term's signed contribution, as the response's group `total`. */
  total: number;
  dice: DescribedDie[];
  /** The `advantage` request field applied to this term (a plain d20): it kept one of two or more. */
  advantage: 'advantage' | 'disadvantage' | undefined;
  /** Success counting: the counted values that met the success point. */
  successes: number | undefined;
  /** Failure counting (`f`): the counted values that met the failure point. */
  failures: number | undefined;
  /** `m` / `mt`: the values shown by at least N kept dice; with `mt` their number is the total. */
  matches: { values: number[]; total: boolean } | undefined;
  /** Whether each die and throw says which succeeded and failed (false only when the formula could not be read). */
  marked: boolean;
  /** Its dice are ranked and counted by the pool group it stands in (`{4d6+3d8}kh3`). */
  pooled: boolean;
}

/** An item of a `{...}` group. */
export interface DescribedItem {
  node: RollNode;
  value: number;
  exact: string | undefined;
  kept: boolean;
  /** The group counts successes on item totals and this item met the success / failure point. */
  success: boolean;
  failure: boolean;
}

/** A node of the roll in formula order: a term, a number, an operation, a function or a group. */
export type RollNode =
  | { kind: 'dice'; term: DiceTerm; value: number }
  | { kind: 'number'; value: number }
  | {
      kind: 'operation';
      /** `+` is a sum of its operands (a subtracted term is a negative operand); `-` with one operand negates it. */
      operator: '+' | '-' | '*' | '/' | '%' | '^';
      operands: RollNode[];
      value: number;
      exact: string | undefined;
    }
  | {
      kind: 'function';
      name: 'floor' | 'ceil' | 'round' | 'abs' | 'min' | 'max';
      arguments: RollNode[];
      value: number;
      exact: string | undefined;
    }
  | {
      kind: 'group';
      items: DescribedItem[];
      /** Its modifiers as written (`kh1`, `>=10f3`); empty when it has none or the formula could not be read. */
      modifiers: string;
      label: string | undefined;
      /** One item with modifiers: they acted on every die inside. */
      pool: boolean;
      successes: number | undefined;
      failures: number | undefined;
      value: number;
      exact: string | undefined;
    };

/** A whole roll, ready to draw or to say. */
export interface RollDescription {
  /** The formula as written. */
  formula: string;
  /** The advantage applied (the response's `advantageState`). */
  advantage: AdvantageState;
  /** The advantage the request asked for, when the request was given: it differs when no plain d20 took it. */
  advantageAsked: AdvantageState | undefined;
  tag: string | undefined;
  /** One per group of the response's `dice`, same index. */
  terms: DiceTerm[];
  /** The roll in formula order, then each bonus: a single node, or a `+` over several. */
  root: RollNode;
  total: number;
  /** The exact value ("n/d") when it is a fraction; `total` is it rounded down. */
  exact: string | undefined;
  /** The total is a count of successes (the roll is one counting term or group): how many of each. */
  counting: { successes: number; failures: number | undefined } | undefined;
  /** The one-line text form (every die listed): `rollText(description)`. */
  text: string;
}

const FATE_FACES = [-1, 0, 1];

/** Whether two lists of faces are the same, in order (both absent counts as the same). */
function sameFaces(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((face, index) => face === b[index]);
}

function pushMark(marks: Mark[], mark: Mark): void {
  if (!marks.includes(mark)) marks.push(mark);
}

/** `NdS` for a term whose text is not known, from its dice. */
function notationOf(group: DieGroup, count: number, fate: boolean): string {
  const sides = fate ? 'F' : group.faces === undefined ? String(group.sides) : `{${group.faces.join(',')}}`;
  return `${count}d${sides}`;
}

/** The dice of a group as the response records them: each die's throws in order. */
function diceOf(group: DieGroup, penetrates: boolean, clamp: (face: number) => number): DescribedDie[] {
  const { results, keptFlags } = group;
  const throws = group.throws;
  if (throws === undefined) {
    return results.map((value, index) => {
      const kept = keptFlags[index] === true;
      return {
        value,
        kept,
        throws: [{ value, face: undefined, kind: 'roll', marks: [] }],
        marks: [kept ? 'kept' : 'dropped'],
      };
    });
  }
  // Each die's throws, and the index in `results` of the last (where its kept flag is).
  const byDie: ResponseThrow[][] = [];
  const lastEntry: number[] = [];
  throws.forEach((thrown, index) => {
    const chain = byDie[thrown.die] ?? [];
    chain.push(thrown);
    byDie[thrown.die] = chain;
    lastEntry[thrown.die] = index;
  });
  const compounded = group.compounded === true;
  return byDie.map((chain, die) => {
    const described: DescribedThrow[] = chain.map((thrown, index) => {
      const next = chain[index + 1];
      const marks: Mark[] = [];
      if (next?.kind === 'reroll') marks.push('rerolled');
      if (thrown.kind === 'explode') marks.push('extra');
      if (next?.kind === 'explode') marks.push('exploded');
      if (thrown.face !== undefined) {
        const penetrated = thrown.kind === 'explode' && penetrates;
        if (penetrated) marks.push('penetrated');
        if (!penetrated || clamp(thrown.face) !== thrown.face) marks.push('clamped');
      }
      return { value: thrown.value, face: thrown.face, kind: thrown.kind, marks };
    });
    if (compounded) {
      const kept = keptFlags[die] === true;
      return {
        value: results[die] ?? 0,
        kept,
        throws: described,
        marks: [kept ? 'kept' : 'dropped', 'compounded'],
      };
    }
    const standing = described.filter((thrown) => !thrown.marks.includes('rerolled'));
    const last = lastEntry[die];
    const kept = last !== undefined && keptFlags[last] === true;
    const value = standing.reduce((sum, thrown) => sum + thrown.value, 0);
    return { value, kept, throws: described, marks: [kept ? 'kept' : 'dropped'] };
  });
}

/** Marks each counted value meeting the success / failure point; false when they disagree with the counts. */
function markCounts(
  term: DiceTerm,
  success: GroupModifier | undefined,
  failure: GroupModifier | undefined,
  compounded: boolean,
): boolean {
  if (term.successes === undefined) return true;
  if (success?.kind !== 'success') return false;
  let successes = 0;
  let failures = 0;
  const mark = (marks: Mark[], value: number) => {
    if (meets(value, success.compare)) {
      marks.push('success');
      successes++;
    }
    if (failure?.kind === 'failure' && meets(value, failure.compare)) {
      marks.push('failure');
      failures++;
    }
  };
  for (const die of term.dice) {
    if (!die.kept) continue;
    if (compounded) mark(die.marks, die.value);
    else
      for (const thrown of die.throws)
        if (!thrown.marks.includes('rerolled')) mark(thrown.marks, thrown.value);
  }
  if (successes === term.successes && failures === (term.failures ?? 0)) return true;
  // The written points do not explain the counts: say nothing rather than something wrong.
  for (const die of term.dice) {
    die.marks = die.marks.filter((m) => m !== 'success' && m !== 'failure');
    for (const thrown of die.throws)
      thrown.marks = thrown.marks.filter((m) => m !== 'success' && m !== 'failure');
  }
  return false;
}

function describeTerm(group: DieGroup, index: number, written: WrittenDice | undefined): DiceTerm {
  const modifiers: readonly TermModifier[] = written?.modifiers ?? [];
  const explode = modifiers.find((m) => m.kind === 'explode');
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  for (const m of modifiers) {
    if (m.kind === 'clamp' && m.bound === 'min') low = m.value;
    if (m.kind === 'clamp' && m.bound === 'max') high = m.value;
  }
  const dice = diceOf(group, explode?.kind === 'explode' && explode.penetrate, (face) =>
    Math.min(Math.max(face, low), high),
  );
  const fate = written === undefined ? sameFaces(group.faces, FATE_FACES) : written.fate;
  const term: DiceTerm = {
    group: index,
    // Whitespace may stand inside custom faces' braces (`2d{-1, 0, 5}`); the text form has none.
    notation: written?.text.replace(/[ \t]+/g, '') ?? notationOf(group, dice.length, fate),
    written: written !== undefined,
    label: group.label,
    fate,
    sides: group.sides,
    faces: group.faces,
    sign: group.sign,
    multiplier: group.multiplier,
    total: group.total,
    dice,
    advantage: undefined,
    successes: group.successes,
    failures: group.failures,
    matches: undefined,
    marked: true,
    pooled: written?.pool !== undefined,
  };
  const match = modifiers.find((m) => m.kind === 'match');
  if (group.matches !== undefined)
    term.matches = { values: group.matches, total: match?.kind === 'match' && match.total };
  const counting = written?.pool?.modifiers ?? modifiers;
  term.marked = markCounts(
    term,
    counting.find((m) => m.kind === 'success') as GroupModifier | undefined,
    counting.find((m) => m.kind === 'failure') as GroupModifier | undefined,
    group.compounded === true,
  );
  // A natural high or low is news on a d20, or where the formula names a critical range (`cs`, `cf`).
  const critical = group.sides === 20 || modifiers.some((m) => m.kind === 'critical');
  const keptDice = dice.filter((die) => die.kept);
  if (critical && keptDice.length === 1) {
    if (group.naturalHigh) pushMark(keptDice[0]!.marks, 'crit');
    if (group.naturalLow) pushMark(keptDice[0]!.marks, 'fumble');
  }
  return term;
}

/** Whether a written term is the response's group: the same kind of die. */
function fits(written: WrittenDice, group: DieGroup): boolean {
  if (written.fate) return sameFaces(group.faces, FATE_FACES);
  return (group.faces === undefined) === !/[dD]\{/.test(written.text);
}

/** The written terms of the formula, then of each string bonus when the request names them. */
function writtenTerms(
  notation: Notation | undefined,
  fragments: ReadonlyArray<Notation | undefined>,
): Array<WrittenDice | undefined> {
  const terms: Array<WrittenDice | undefined> = [...(notation?.dice ?? [])];
  for (const fragment of fragments) terms.push(...(fragment?.dice ?? []));
  return terms;
}

interface Build {
  terms: DiceTerm[];
  notation: Notation | undefined;
  groupsSeen: number;
}

function fromResponse(node: ResponseNode, build: Build): RollNode {
  switch (node.type) {
    case 'dice': {
      const term = build.terms[node.group];
      if (term === undefined) return { kind: 'number', value: node.value };
      return { kind: 'dice', term, value: node.value };
    }
    case 'number':
      return { kind: 'number', value: node.value };
    case 'operation':
      return {
        kind: 'operation',
        operator: node.operator,
        operands: node.operands.map((operand) => fromResponse(operand, build)),
        value: node.value,
        exact: node.exact,
      };
    case 'function':
      return {
        kind: 'function',
        name: node.name,
        arguments: node.arguments.map((argument) => fromResponse(argument, build)),
        value: node.value,
        exact: node.exact,
      };
    case 'group': {
      const written = build.notation?.groups[build.groupsSeen++];
      const success = written?.modifiers.find((m) => m.kind === 'success');
      const failure = written?.modifiers.find((m) => m.kind === 'failure');
      const pool = written?.pool ?? (node.items.length === 1 && node.successes !== undefined);
      const items: DescribedItem[] = node.items.map((item) => {
        const counted = item.kept && !pool;
        return {
          node: fromResponse(item.node, build),
          value: item.value,
          exact: item.exact,
          kept: item.kept,
          success: counted && success?.kind === 'success' && meets(item.value, success.compare),
          failure: counted && failure?.kind === 'failure' && meets(item.value, failure.compare),
        };
      });
      return {
        kind: 'group',
        items,
        modifiers: written?.modifierText ?? '',
        label: node.label,
        pool,
        successes: node.successes,
        failures: node.failures,
        value: node.value,
        exact: node.exact,
      };
    }
  }
}

/**
 * The roll of a plain sum (no `expression`) in written order: the formula's terms and numbers,
 * then each bonus's; or, when that does not line up, every term then every number.
 */
function plainSum(
  roll: DescribedRoll,
  terms: DiceTerm[],
  notation: Notation | undefined,
  request: DescribedRequest | undefined,
): RollNode[] {
  let group = 0;
  let modifier = 0;
  const nodes: RollNode[] = [];
  const take = (sum: Notation['sum']): boolean => {
    if (sum === undefined) return false;
    for (const entry of sum) {
      if (entry.kind === 'dice') {
        const term = terms[group++];
        if (term === undefined || term.sign !== entry.sign) return false;
        nodes.push({ kind: 'dice', term, value: term.total });
      } else {
        const value = roll.modifiers[modifier++];
        if (value !== entry.sign * entry.value) return false;
        nodes.push({ kind: 'number', value });
      }
    }
    return true;
  };
  let lined = take(notation?.sum);
  if (lined && request?.bonuses !== undefined) {
    for (const bonus of request.bonuses) {
      if (typeof bonus === 'number') {
        const value = roll.modifiers[modifier++];
        lined &&= value === bonus;
        nodes.push({ kind: 'number', value: bonus });
      } else lined &&= take(readNotation(bonus, true)?.sum);
      if (!lined) break;
    }
  }
  if (!lined) {
    group = 0;
    modifier = 0;
    nodes.length = 0;
  }
  // Whatever is left (all of it when the text could not be followed): terms, then numbers.
  for (; group < terms.length; group++)
    nodes.push({ kind: 'dice', term: terms[group]!, value: terms[group]!.total });
  for (; modifier < roll.modifiers.length; modifier++)
    nodes.push({ kind: 'number', value: roll.modifiers[modifier]! });
  return nodes;
}

/** The first plain d20 of the formula: the term the `advantage` field applies to (docs/language.md, "Advantage"). */
function advantagedTerm(
  terms: readonly DiceTerm[],
  written: ReadonlyArray<WrittenDice | undefined>,
  formulaTerms: number,
): DiceTerm | undefined {
  if (written.some((w) => w?.modifiers.some((m) => m.kind === 'advantage'))) return undefined;
  return terms.slice(0, formulaTerms).find((term, index) => {
    const w = written[index];
    return (
      w !== undefined &&
      term.sides === 20 &&
      term.faces === undefined &&
      w.pool === undefined &&
      !w.modifiers.some((m) => m.kind === 'keep' || m.kind === 'drop')
    );
  });
}

/** The description of a roll; `request` (the request rolled, or a receipt's `request`) names string bonuses as written. */
export function describeRoll(roll: DescribedRoll, request?: DescribedRequest): RollDescription {
  const notation = readNotation(roll.formula);
  const fragments = (request?.bonuses ?? [])
    .filter((b): b is string => typeof b === 'string')
    .map((b) => readNotation(b, true));
  let written = writtenTerms(notation, fragments);
  // Bonuses not named: the formula's terms are written, the rest are named from their dice.
  if (written.length !== roll.dice.length) written = (notation?.dice ?? []).slice(0, roll.dice.length);
  const terms = roll.dice.map((group, index) => {
    const w = written[index];
    return describeTerm(group, index, w !== undefined && fits(w, group) ? w : undefined);
  });
  if (roll.advantageState !== 'normal') {
    const term = advantagedTerm(terms, written, notation?.dice.length ?? 0);
    if (term !== undefined) term.advantage = roll.advantageState;
  }
  let root: RollNode;
  let exact: string | undefined;
  if (roll.expression !== undefined) {
    const groupCount = countGroups(roll.expression);
    const lined =
      notation !== undefined &&
      notation.groups.length + fragments.reduce((n, f) => n + (f?.groups.length ?? 0), 0) === groupCount;
    const groups = lined
      ? { ...notation, groups: [...notation.groups, ...fragments.flatMap((f) => f?.groups ?? [])] }
      : undefined;
    root = fromResponse(roll.expression, { terms, notation: groups, groupsSeen: 0 });
    exact =
      roll.expression.type === 'number' || roll.expression.type === 'dice'
        ? undefined
        : roll.expression.exact;
  } else {
    const nodes = plainSum(roll, terms, notation, request);
    root =
      nodes.length === 1
        ? nodes[0]!
        : { kind: 'operation', operator: '+', operands: nodes, value: roll.total, exact: undefined };
  }
  const description: RollDescription = {
    formula: roll.formula,
    advantage: roll.advantageState,
    advantageAsked: request === undefined ? undefined : (request.advantage ?? 'normal'),
    tag: roll.tag,
    terms,
    root,
    total: roll.total,
    exact,
    counting: countingOf(root),
    text: '',
  };
  description.text = rollText(description);
  return description;
}

function countGroups(node: ResponseNode): number {
  switch (node.type) {
    case 'operation':
      return node.operands.reduce((n, operand) => n + countGroups(operand), 0);
    case 'function':
      return node.arguments.reduce((n, argument) => n + countGroups(argument), 0);
    case 'group':
      return 1 + node.items.reduce((n, item) => n + countGroups(item.node), 0);
    default:
      return 0;
  }
}

/** The roll's total is a count of successes: its root is one counting term (sign +, no multiplier) or group. */
function countingOf(root: RollNode): RollDescription['counting'] {
  if (
    root.kind === 'dice' &&
    root.term.successes !== undefined &&
    root.term.sign === 1 &&
    root.term.multiplier === 1
  ) {
    return { successes: root.term.successes, failures: root.term.failures };
  }
  if (root.kind === 'group' && root.successes !== undefined)
    return { successes: root.successes, failures: root.failures };
  return undefined;
}

// --- the text form ---------------------------------------------------------------------------

/** How `rollText` writes a roll. */
export interface TextOptions {
  /** Dice listed per term before the rest is summed up (`… 970 more = 3512`); default: all. */
  maxDice?: number;
}

/** A face as the text form and the page show it: Fate dice as `+`, `-` and (blank) `0`. */
export function faceText(value: number, fate: boolean): string {
  if (!fate) return String(value);
  return value > 0 ? '+' : value < 0 ? '-' : '0';
}

const counted = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** `2 successes`, `2 successes, 1 failure`. */
export function countsText(successes: number, failures: number | undefined): string {
  const text = counted(successes, 'success', 'successes');
  return failures === undefined ? text : `${text}, ${counted(failures, 'failure', 'failures')}`;
}

function throwText(thrown: DescribedThrow, fate: boolean): string {
  let text = faceText(thrown.value, fate);
  if (thrown.face !== undefined) {
    text = `${faceText(thrown.face, fate)}${thrown.value > thrown.face ? '↑' : '↓'}${text}`;
  }
  if (thrown.marks.includes('success')) text += '✓';
  if (thrown.marks.includes('failure')) text += '✗';
  if (thrown.marks.includes('exploded')) text += '!';
  return text;
}

/**
 * One die: rerolled-away throws before `→`, explosion extras after `!+`, a compounded die's merged
 * value after `=`; in parentheses when it does not count; `crit` / `fumble` after it.
 */
export function dieText(die: DescribedDie, fate: boolean): string {
  const rerolled = die.throws.filter((t) => t.marks.includes('rerolled')).map((t) => throwText(t, fate));
  const chain = die.throws.filter((t) => !t.marks.includes('rerolled')).map((t) => throwText(t, fate));
  let text = [...rerolled, chain.join('+')].join('→');
  if (die.marks.includes('compounded') && chain.length > 1) {
    text += `=${faceText(die.value, fate)}`;
  }
  if (die.marks.includes('compounded')) {
    if (die.marks.includes('success')) text += '✓';
    if (die.marks.includes('failure')) text += '✗';
  }
  if (!die.kept) text = `(${text})`;
  if (die.marks.includes('crit')) text += ' crit';
  if (die.marks.includes('fumble')) text += ' fumble';
  return text;
}

/** A term: `4d6kh3 [6 5 3 (1)]`, then its counts or sets, then `×K` for a multiplier. */
export function termText(term: DiceTerm, options: TextOptions = {}, annotate = true): string {
  const label = term.label === undefined ? '' : `[${term.label}]`;
  const shown = term.dice.slice(0, options.maxDice ?? term.dice.length);
  const parts = shown.map((die) => dieText(die, term.fate));
  const rest = term.dice.length - shown.length;
  if (rest > 0) {
    let more = `… ${rest} more`;
    if (term.successes === undefined && term.matches?.total !== true) {
      const kept = term.dice.filter((die) => die.kept).reduce((sum, die) => sum + die.value, 0);
      more += ` = ${kept}`;
    }
    parts.push(more);
  }
  let text = `${term.notation}${label} [${parts.join(' ')}]`;
  if (annotate && term.successes !== undefined) text += ` (${countsText(term.successes, term.failures)})`;
  if (term.matches !== undefined) {
    const values = term.matches.values.join(', ');
    if (term.matches.total)
      text += ` (${counted(term.matches.values.length, 'set', 'sets')}${values === '' ? '' : `: ${values}`})`;
    else text += values === '' ? ' (no sets)' : ` (sets of ${values})`;
  }
  if (term.multiplier !== 1) text += ` ×${term.multiplier}`;
  return text;
}

/** How tightly a node binds, for parentheses: sums 1, products 2, signs 3, powers 4, atoms 5. */
function precedence(node: RollNode): number {
  switch (node.kind) {
    case 'dice':
      return node.term.sign < 0 ? 3 : 5;
    case 'number':
      return node.value < 0 ? 3 : 5;
    case 'operation':
      return { '+': 1, '-': 3, '*': 2, '/': 2, '%': 2, '^': 4 }[node.operator];
    default:
      return 5;
  }
}

/** Whether a node is written with a leading minus: a term written after `-`, a negative number, a negation. */
function negative(node: RollNode): boolean {
  if (node.kind === 'dice') return node.term.sign < 0;
  if (node.kind === 'number') return node.value < 0;
  return node.kind === 'operation' && node.operator === '-';
}

/** A piece of an operation as it is written: an operator, or an operand. */
export type Piece =
  | { kind: 'operator'; operator: '+' | '-' | '*' | '/' | '%' | '^' }
  | {
      kind: 'operand';
      node: RollNode;
      /** Written in parentheses. */
      parentheses: boolean;
      /** Written without its own minus (a term or number after a `-` operator). */
      unsigned: boolean;
    };

type OperationNode = Extract<RollNode, { kind: 'operation' }>;

/**
 * An operation as it is written, piece by piece, with the parentheses precedence needs:
 * `a + b - c` (a subtracted term or number loses its own minus to the operator), `-x`, `a * b`.
 * The text form and the page both write operations this way.
 */
export function piecesOf(node: OperationNode): Piece[] {
  const operand = (child: RollNode, parentheses: boolean, unsigned = false): Piece => ({
    kind: 'operand',
    node: child,
    parentheses,
    unsigned,
  });
  const [first, second] = node.operands;
  if (node.operator === '+') {
    return node.operands.flatMap((child, index): Piece[] => {
      const nested = child.kind === 'operation' && child.operator === '+';
      if (index === 0) return [operand(child, nested)];
      if (!negative(child)) return [{ kind: 'operator', operator: '+' }, operand(child, nested)];
      if (child.kind === 'operation') {
        const inner = child.operands[0]!;
        return [{ kind: 'operator', operator: '-' }, operand(inner, precedence(inner) <= 1)];
      }
      return [{ kind: 'operator', operator: '-' }, operand(child, false, true)];
    });
  }
  if (node.operator === '-' || second === undefined) {
    return [{ kind: 'operator', operator: '-' }, operand(first!, precedence(first!) <= 3)];
  }
  const own = precedence(node);
  const power = node.operator === '^';
  return [
    operand(first!, power ? precedence(first!) <= own : precedence(first!) < own),
    { kind: 'operator', operator: node.operator },
    operand(second, power ? precedence(second) < 3 : precedence(second) <= own),
  ];
}

interface Writer {
  options: TextOptions;
  /** The root when the total line names its counts: it says them, so the root does not. */
  counted: RollNode | undefined;
}

function itemText(item: DescribedItem, writer: Writer): string {
  let text = nodeText(item.node, writer);
  if (!item.kept) text += ' dropped';
  if (item.success) text += ' ✓';
  if (item.failure) text += ' ✗';
  return text;
}

function nodeText(node: RollNode, writer: Writer, unsigned = false): string {
  switch (node.kind) {
    case 'dice': {
      const text = termText(node.term, writer.options, node !== writer.counted);
      return node.term.sign < 0 && !unsigned ? `-${text}` : text;
    }
    case 'number':
      return String(unsigned ? -node.value : node.value);
    case 'function':
      return `${node.name}(${node.arguments.map((argument) => nodeText(argument, writer)).join(', ')})`;
    case 'group': {
      let text = `{${node.items.map((item) => itemText(item, writer)).join(', ')}}${node.modifiers}`;
      if (node.label !== undefined) text += `[${node.label}]`;
      if (node.successes !== undefined && !node.pool && node !== writer.counted) {
        text += ` (${countsText(node.successes, node.failures)})`;
      }
      return text;
    }
    case 'operation':
      return piecesOf(node)
        .map((piece) => {
          if (piece.kind === 'operator') {
            // A binary operator stands between spaces; a leading minus sticks to its operand.
            return piece.operator === '-' && (node.operator === '-' || node.operands.length === 1)
              ? '-'
              : ` ${piece.operator} `;
          }
          const text = nodeText(piece.node, writer, piece.unsigned);
          return piece.parentheses ? `(${text})` : text;
        })
        .join('');
  }
}

/**
 * The one-line text form: each term with its dice, the numbers and operators between them, and
 * the total: `4d6kh3 [6 5 3 (1)] + 2 = 16`, `8d10>=8!>=10 [10✓!+9✓ 8✓ 3] = 3 successes`,
 * `(1d8 [5] + 4) * 2 = 18`. Marks: `(…)` does not count, `a→b` a rerolled away for b, `a!+b` a
 * exploded and b is its extra, `a+b=c` compounded into c, `a↑b` / `a↓b` face a recorded as b
 * (min/max, penetration), `✓` success, `✗` failure. An advantage applied and a tag follow the total.
 */
export function rollText(description: RollDescription, options: TextOptions = {}): string {
  const counting = description.counting;
  const writer: Writer = { options, counted: counting === undefined ? undefined : description.root };
  let total = String(description.total);
  if (counting !== undefined) {
    total = counted(counting.successes, 'success', 'successes');
    if (counting.failures !== undefined) {
      total += ` - ${counted(counting.failures, 'failure', 'failures')} = ${description.total}`;
    }
  } else if (description.exact !== undefined) {
    total += ` (${description.exact} rounded down)`;
  }
  const advantage = description.advantage === 'normal' ? '' : ` with ${description.advantage}`;
  const tag = description.tag === undefined ? '' : ` ${description.tag}`;
  return `${nodeText(description.root, writer)} = ${total}${advantage}${tag}`;
}

// The written form of a formula, read back from its text: where each dice term and each group
// stands, what it says (`4d6kh3`, `8d10>=8!>=10`, `4dF`), and its modifiers, so that a roll's
// description can name each term as written and mark each die (a success point says which dice
// succeeded; the response only counts them). It reads formulas the service accepted
// (docs/language.md, the grammar in grammar/dice.peggy) and checks none of the rules the service
// checks: for any text it cannot follow it answers undefined, and the description then names
// terms from the response alone. No dependency: it runs in a browser as in Node.

/** A compare point as written: `>=8`, `<>1`, or a bare `1` after `r` (meaning `=1`). */
export interface ComparePoint {
  operator: '=' | '<>' | '<' | '<=' | '>' | '>=';
  value: number;
}

/** A modifier of a dice term (docs/language.md, "Modifiers"). */
export type TermModifier =
  | { kind: 'keep' | 'drop'; mode: 'highest' | 'lowest'; amount: number }
  | { kind: 'advantage'; mode: 'advantage' | 'disadvantage' }
  | { kind: 'explode'; penetrate: boolean; compound: boolean; compare: ComparePoint | undefined }
  | { kind: 'reroll'; once: boolean; compare: ComparePoint }
  | { kind: 'unique'; once: boolean; compare: ComparePoint | undefined }
  | { kind: 'multiply'; factor: number }
  | { kind: 'clamp'; bound: 'min' | 'max'; value: number }
  | { kind: 'match'; total: boolean; amount: number }
  | { kind: 'critical'; range: 'success' | 'failure'; compare: ComparePoint }
  | { kind: 'failure'; compare: ComparePoint }
  | { kind: 'success'; compare: ComparePoint };

/** A modifier of a `{...}` group: keep/drop on item totals (or on every die of a pool), or counting. */
export type GroupModifier = Extract<TermModifier, { kind: 'keep' | 'drop' | 'failure' | 'success' }>;

/** A `{...}` group as written. */
export interface WrittenGroup {
  /** Its modifiers as written (`kh1`, `>=10f3`), empty when it has none. */
  modifierText: string;
  modifiers: GroupModifier[];
  label: string | undefined;
  /** How many items it lists. */
  items: number;
  /** One item with modifiers: the modifiers act on every die inside (docs/language.md, "pool"). */
  pool: boolean;
}

/** A dice term as written. */
export interface WrittenDice {
  /** The term without its label: `4d6kh3`, `(4-2)d10`, `4dF`, `d{1,1,2}`. */
  text: string;
  label: string | undefined;
  /** Written with `dF` sides. */
  fate: boolean;
  modifiers: TermModifier[];
  /** The pool group whose modifiers act on this term's dice, when it stands in one. */
  pool: WrittenGroup | undefined;
}

/** One term of a formula that is a plain signed sum of dice terms and numbers. */
export type SumTerm = { sign: 1 | -1; kind: 'dice' } | { sign: 1 | -1; kind: 'number'; value: number };

/** What a formula's text says, in written order. */
export interface Notation {
  /** Every dice term wherever it stands, in written order: the order of a response's `dice`. */
  dice: WrittenDice[];
  /** Every group wherever it stands, by the position of its `{`. */
  groups: WrittenGroup[];
  /** When the formula is a plain signed sum (no parentheses, products, functions or groups): its terms. */
  sum: SumTerm[] | undefined;
  tag: string | undefined;
}

/** Any text this reader cannot follow: the formula is then named from the response alone. */
class Unreadable extends Error {}

const FUNCTIONS = ['floor', 'ceil', 'round', 'abs', 'min', 'max'];
const COMPARE_OPERATORS = ['<>', '<=', '>=', '<', '>', '='] as const;
const LABEL = /^\[([A-Za-z0-9 _'-]{1,32})\]/;

/** What one product of a sum turned out to be: a bare dice term or number, or anything else. */
type Summary = { kind: 'dice' } | { kind: 'number'; value: number } | { kind: 'other' };

class Reader {
  private at = 0;
  readonly dice: WrittenDice[] = [];
  readonly groups: WrittenGroup[] = [];
  /** Dice terms waiting for their enclosing group to be read: the group decides whether it is a pool. */
  private readonly open: WrittenDice[][] = [];
  /** Inside a computed number of sides: no dice term or group of the response is there. */
  private inSpec = 0;

  constructor(private readonly text: string) {}

  read(fragment: boolean): Notation {
    this.spaces();
    const sum = this.terms();
    let tag: string | undefined;
    if (!fragment) {
      const match = /^[ \t]+([a-zA-Z0-9]+)/.exec(this.rest());
      if (match !== null) {
        tag = match[1];
        this.at += match[0].length;
      }
    }
    this.spaces();
    if (this.at !== this.text.length) throw new Unreadable();
    return { dice: this.dice, groups: this.groups, sum, tag };
  }

  private rest(): string {
    return this.text.slice(this.at);
  }

  private peek(length = 1): string {
    return this.text.slice(this.at, this.at + length);
  }

  private spaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  /** Consumes `literal` (case-insensitively) when it is next. */
  private take(literal: string): boolean {
    if (this.peek(literal.length).toLowerCase() !== literal) return false;
    this.at += literal.length;
    return true;
  }

  private expect(literal: string): void {
    if (!this.take(literal)) throw new Unreadable();
  }

  private digits(): number | undefined {
    const match = /^[0-9]+/.exec(this.rest());
    if (match === null) return undefined;
    this.at += match[0].length;
    return Number(match[0]);
  }

  private signedDigits(): number | undefined {
    const start = this.at;
    const negative = this.take('-');
    const value = this.digits();
    if (value === undefined) {
      this.at = start;
      return undefined;
    }
    return negative ? -value : value;
  }

  /** Terms := Product (Sign Product)*; the sum's terms when each is a bare dice term or number. */
  private terms(): SumTerm[] | undefined {
    const first = this.product(true);
    const sum: Array<SumTerm | undefined> = [first];
    for (;;) {
      const start = this.at;
      this.spaces();
      const sign = this.peek();
      if (sign !== '+' && sign !== '-') {
        this.at = start;
        break;
      }
      this.at++;
      this.spaces();
      const next = this.product(false);
      sum.push(next === undefined ? undefined : { ...next, sign: sign === '-' ? -1 : 1 });
    }
    return sum.every((term) => term !== undefined) ? (sum as SumTerm[]) : undefined;
  }

  /** Product := Unary (MultiplyOperator Unary)*; a bare signed atom as a sum term. */
  private product(signed: boolean): SumTerm | undefined {
    let sign: 1 | -1 = 1;
    if (signed && (this.peek() === '+' || this.peek() === '-')) {
      sign = this.peek() === '-' ? -1 : 1;
      this.at++;
      this.spaces();
    }
    let summary = this.power();
    for (;;) {
      const start = this.at;
      this.spaces();
      const operator = this.peek();
      if (operator !== '*' && operator !== '/' && operator !== '%') {
        this.at = start;
        break;
      }
      this.at++;
      this.spaces();
      this.unary();
      summary = { kind: 'other' };
    }
    if (summary.kind === 'other') return undefined;
    return summary.kind === 'dice' ? { sign, kind: 'dice' } : { sign, kind: 'number', value: summary.value };
  }

  private unary(): void {
    if (this.peek() === '+' || this.peek() === '-') {
      this.at++;
      this.spaces();
    }
    this.power();
  }

  /** Power := Atom (PowerOperator Unary)?. */
  private power(): Summary {
    const atom = this.atom();
    const start = this.at;
    this.spaces();
    if (this.take('^') || this.take('**')) {
      this.spaces();
      this.unary();
      return { kind: 'other' };
    }
    this.at = start;
    return atom;
  }

  private atom(): Summary {
    const start = this.at;
    const count = this.digits();
    if (/^[dD]/.test(this.peek())) return this.diceTerm(start);
    if (count !== undefined) return { kind: 'number', value: count };
    const next = this.peek();
    if (next === '(') {
      const dice = this.dice.length;
      const groups = this.groups.length;
      const enclosing = this.open.at(-1);
      const enclosed = enclosing?.length ?? 0;
      this.at++;
      this.spaces();
      this.terms();
      this.spaces();
      this.expect(')');
      if (!/^[dD]/.test(this.peek())) return { kind: 'other' };
      // A parenthesis followed by `d` is a computed count (`(4-2)d10`): whatever it held is
      // part of that term, not a term or group of the response.
      this.dice.length = dice;
      this.groups.length = groups;
      if (enclosing !== undefined) enclosing.length = enclosed;
      return this.diceTerm(start);
    }
    if (next === '{') {
      this.group();
      return { kind: 'other' };
    }
    const name = FUNCTIONS.find(
      (candidate) => this.peek(candidate.length + 1).toLowerCase() === `${candidate}(`,
    );
    if (name === undefined) throw new Unreadable();
    this.at += name.length + 1;
    this.items(')');
    return { kind: 'other' };
  }

  /** Item (, Item)* up to `close`. */
  private items(close: string): number {
    let items = 0;
    do {
      this.spaces();
      this.terms();
      this.spaces();
      items++;
    } while (this.take(','));
    this.expect(close);
    return items;
  }

  /** `{ items }` then group modifiers and a label. */
  private group(): void {
    // Counted before its items: groups are listed by the position of their `{`.
    const placeholder: WrittenGroup = {
      modifierText: '',
      modifiers: [],
      label: undefined,
      items: 0,
      pool: false,
    };
    const recorded = this.inSpec === 0;
    if (recorded) this.groups.push(placeholder);
    this.at++;
    const inside: WrittenDice[] = [];
    this.open.push(inside);
    placeholder.items = this.items('}');
    this.open.pop();
    const start = this.at;
    for (;;) {
      const modifier = this.groupModifier();
      if (modifier === undefined) break;
      placeholder.modifiers.push(modifier);
    }
    placeholder.modifierText = this.text.slice(start, this.at);
    placeholder.label = this.label();
    placeholder.pool = placeholder.items === 1 && placeholder.modifiers.length > 0;
    for (const term of inside) {
      if (placeholder.pool) term.pool = placeholder;
      else this.open.at(-1)?.push(term);
    }
  }

  private groupModifier(): GroupModifier | undefined {
    return this.keepHead() ?? this.countingPoint();
  }

  /** A failure point (`f1`, `f<=2`) or a success point (`>=8`): the last choices of both grammars. */
  private countingPoint(): GroupModifier | undefined {
    const start = this.at;
    if (this.take('f')) {
      const compare = this.comparePoint();
      if (compare !== undefined) return { kind: 'failure', compare };
      this.at = start;
      return undefined;
    }
    const success = this.operatorPoint();
    return success === undefined ? undefined : { kind: 'success', compare: success };
  }

  /** A dice term from `start` (its count, if any, already read): `d`, sides, modifiers, label. */
  private diceTerm(start: number): Summary {
    this.at++; // the letter d
    const term: WrittenDice = { text: '', label: undefined, fate: false, modifiers: [], pool: undefined };
    if (this.inSpec === 0) {
      this.dice.push(term);
      this.open.at(-1)?.push(term);
    }
    const sides = this.peek();
    if (sides === '%') this.at++;
    else if (sides === 'f' || sides === 'F') {
      this.at++;
      term.fate = true;
    } else if (sides === '{') {
      const close = this.text.indexOf('}', this.at);
      if (close < 0) throw new Unreadable();
      this.at = close + 1;
    } else if (sides === '(') {
      this.at++;
      this.inSpec++;
      this.spaces();
      this.terms();
      this.spaces();
      this.expect(')');
      this.inSpec--;
    } else if (this.digits() === undefined) throw new Unreadable();
    for (;;) {
      const modifier = this.modifier();
      if (modifier === undefined) break;
      term.modifiers.push(modifier);
    }
    term.text = this.text.slice(start, this.at);
    term.label = this.label();
    return { kind: 'dice' };
  }

  private label(): string | undefined {
    const match = LABEL.exec(this.rest());
    if (match === null) return undefined;
    this.at += match[0].length;
    return match[1];
  }

  private keepHead(): GroupModifier | undefined {
    for (const head of ['kh', 'kl', 'k', 'dh', 'dl']) {
      if (this.take(head)) {
        const amount = this.digits() ?? 1;
        const kind = head.startsWith('k') ? 'keep' : 'drop';
        const mode = head === 'kl' || head === 'dl' ? 'lowest' : 'highest';
        return { kind, mode, amount };
      }
    }
    return undefined;
  }

  private operatorPoint(): ComparePoint | undefined {
    const start = this.at;
    for (const operator of COMPARE_OPERATORS) {
      if (this.take(operator)) {
        const value = this.signedDigits();
        if (value !== undefined) return { operator, value };
        this.at = start;
        return undefined;
      }
    }
    return undefined;
  }

  /** A compare point after a modifier: an operator and a value, or a bare number meaning `=`. */
  private comparePoint(): ComparePoint | undefined {
    const written = this.operatorPoint();
    if (written !== undefined) return written;
    const value = this.digits();
    return value === undefined ? undefined : { operator: '=', value };
  }

  /** One dice modifier, in the grammar's order of alternatives; undefined when none is next. */
  private modifier(): TermModifier | undefined {
    const start = this.at;
    const keep = this.keepHead();
    if (keep !== undefined) return keep;
    for (const mode of ['adv', 'dis'] as const) {
      if (this.take(mode)) return { kind: 'advantage', mode: mode === 'adv' ? 'advantage' : 'disadvantage' };
    }
    if (/^[dD][0-9]/.test(this.peek(2))) {
      this.at++;
      return { kind: 'drop', mode: 'lowest', amount: this.digits() ?? 1 };
    }
    for (const head of ['!!p', '!!', '!p', '!']) {
      if (this.take(head)) {
        return {
          kind: 'explode',
          penetrate: head.endsWith('p'),
          compound: head.startsWith('!!'),
          compare: this.comparePoint(),
        };
      }
    }
    for (const head of ['ro', 'r']) {
      if (this.take(head)) {
        return {
          kind: 'reroll',
          once: head === 'ro',
          compare: this.comparePoint() ?? { operator: '=', value: 1 },
        };
      }
    }
    for (const head of ['uo', 'u']) {
      if (this.take(head)) return { kind: 'unique', once: head === 'uo', compare: this.comparePoint() };
    }
    if (this.take('x')) {
      const factor = this.digits();
      if (factor !== undefined) return { kind: 'multiply', factor };
      this.at = start;
      return undefined;
    }
    for (const bound of ['min', 'max'] as const) {
      if (this.take(bound)) {
        const value = this.signedDigits();
        if (value !== undefined) return { kind: 'clamp', bound, value };
        this.at = start;
        return undefined;
      }
    }
    for (const head of ['mt', 'm']) {
      if (this.take(head)) return { kind: 'match', total: head === 'mt', amount: this.digits() ?? 2 };
    }
    for (const head of ['cs', 'cf']) {
      if (this.take(head)) {
        const compare = this.comparePoint();
        if (compare === undefined) throw new Unreadable();
        return { kind: 'critical', range: head === 'cs' ? 'success' : 'failure', compare };
      }
    }
    return this.countingPoint();
  }
}

/**
 * The written form of a formula the service accepted (`fragment`: a string bonus, which has no
 * tag), or undefined when the text cannot be followed.
 */
export function readNotation(text: string, fragment = false): Notation | undefined {
  try {
    return new Reader(text).read(fragment);
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
}

/** Whether `value` meets a compare point. */
export function meets(value: number, compare: ComparePoint): boolean {
  switch (compare.operator) {
    case '<':
      return value < compare.value;
    case '<=':
      return value <= compare.value;
    case '>':
      return value > compare.value;
    case '>=':
      return value >= compare.value;
    case '<>':
      return value !== compare.value;
    default:
      return value === compare.value;
  }
}

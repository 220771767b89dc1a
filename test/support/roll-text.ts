// A reader of the one-line text form of a roll (packages/client/src/describe.ts, `rollText`),
// written from its documented marks alone (docs/client.md): it reads the kept numbers, the
// operators, the functions and the groups of a line, evaluates them exactly, and reads the total
// the line states. The tests hold the two equal: a reader can rebuild the total from the line.

/** An exact fraction, so that `1d10/3+1d10/3+1d10/3` adds up as the service's arithmetic does. */
class Fraction {
  readonly n: bigint;
  readonly d: bigint;
  constructor(n: bigint, d = 1n) {
    if (d === 0n) throw new Error('division by zero in the text form');
    const sign = d < 0n ? -1n : 1n;
    const g = gcd(n < 0n ? -n : n, d < 0n ? -d : d) || 1n;
    this.n = (sign * n) / g;
    this.d = (sign * d) / g;
  }
  static of(value: number): Fraction {
    return new Fraction(BigInt(value));
  }
  add(o: Fraction): Fraction {
    return new Fraction(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  neg(): Fraction {
    return new Fraction(-this.n, this.d);
  }
  mul(o: Fraction): Fraction {
    return new Fraction(this.n * o.n, this.d * o.d);
  }
  div(o: Fraction): Fraction {
    return new Fraction(this.n * o.d, this.d * o.n);
  }
  floor(): bigint {
    const q = this.n / this.d;
    return this.n < 0n && q * this.d !== this.n ? q - 1n : q;
  }
  ceil(): bigint {
    return -this.neg().floor();
  }
  trunc(): bigint {
    return this.n / this.d;
  }
  compare(o: Fraction): number {
    const diff = this.n * o.d - o.n * this.d;
    return diff < 0n ? -1 : diff > 0n ? 1 : 0;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** What the reader found: the value of the expression, the total stated, and the counts it named. */
export interface ReadLine {
  value: Fraction;
  /** The value rounded down, as the service rounds a total. */
  rounded: number;
  stated: number;
  statedCounts: { successes: number; failures: number | undefined } | undefined;
  /** Per term: successes and failures counted from its ✓ and ✗ marks, and the counts its note states. */
  terms: Array<{ notation: string; marks: [number, number]; stated: [number, number] | undefined }>;
}

interface Parsed {
  value: Fraction;
  /**
   * A term's ✓ and ✗ marks, or a group's items' (two or more items): what the value is when the
   * total line states counts, this being the whole roll. Undefined when not all dice are listed.
   */
  marks?: [number, number] | undefined;
}

class LineReader {
  private at = 0;
  readonly terms: ReadLine['terms'] = [];
  constructor(private readonly text: string) {}

  private rest(): string {
    return this.text.slice(this.at);
  }

  private take(literal: string): boolean {
    if (!this.text.startsWith(literal, this.at)) return false;
    this.at += literal.length;
    return true;
  }

  private fail(what: string): never {
    throw new Error(`the text form does not read at ${this.at} (${what}): ${this.text}`);
  }

  sum(): Parsed {
    let first = this.product();
    for (;;) {
      if (this.take(' + ')) first = { value: first.value.add(this.product().value) };
      else if (this.take(' - ')) first = { value: first.value.add(this.product().value.neg()) };
      else return first;
    }
  }

  private product(): Parsed {
    let left = this.unary();
    for (;;) {
      if (this.take(' * ')) left = { value: left.value.mul(this.unary().value) };
      else if (this.take(' / ')) left = { value: left.value.div(this.unary().value) };
      else if (this.take(' % ')) {
        const right = this.unary().value;
        const quotient = new Fraction(left.value.div(right).trunc());
        left = { value: left.value.add(right.mul(quotient).neg()) };
      } else return left;
    }
  }

  private unary(): Parsed {
    if (this.take('-')) return { value: this.unary().value.neg() };
    return this.power();
  }

  private power(): Parsed {
    const base = this.atom();
    if (!this.take(' ^ ')) return base;
    const exponent = this.unary().value;
    if (exponent.d !== 1n || exponent.n < 0n) this.fail('exponent');
    let value = new Fraction(1n);
    for (let i = 0n; i < exponent.n; i++) value = value.mul(base.value);
    return { value };
  }

  private atom(): Parsed {
    const term = this.term();
    if (term !== undefined) return term;
    if (this.take('{')) return this.group();
    const fn = /^(floor|ceil|round|abs|min|max)\(/.exec(this.rest());
    if (fn !== null) {
      this.at += fn[0].length;
      const args = [this.sum().value];
      while (this.take(', ')) args.push(this.sum().value);
      if (!this.take(')')) this.fail('function');
      const [x] = args as [Fraction];
      switch (fn[1]) {
        case 'floor':
          return { value: new Fraction(x.floor()) };
        case 'ceil':
          return { value: new Fraction(x.ceil()) };
        case 'round': {
          const half = new Fraction(1n, 2n);
          return {
            value: new Fraction(
              x.compare(new Fraction(0n)) < 0 ? -x.neg().add(half).floor() : x.add(half).floor(),
            ),
          };
        }
        case 'abs':
          return { value: x.compare(new Fraction(0n)) < 0 ? x.neg() : x };
        case 'min':
          return { value: args.reduce((a, b) => (b.compare(a) < 0 ? b : a)) };
        default:
          return { value: args.reduce((a, b) => (b.compare(a) > 0 ? b : a)) };
      }
    }
    if (this.take('(')) {
      const inner = this.sum();
      if (!this.take(')')) this.fail('parenthesis');
      return { value: inner.value };
    }
    const number = /^\d+/.exec(this.rest());
    if (number === null) this.fail('atom');
    this.at += number[0].length;
    return { value: new Fraction(BigInt(number[0])) };
  }

  /** `{item, item}mods[label] (note)`: kept items add up, or with a counting note ✓ minus ✗. */
  private group(): Parsed {
    const items: Array<{ value: Fraction; dropped: boolean; success: boolean; failure: boolean }> = [];
    do {
      const { value } = this.sum();
      const dropped = this.take(' dropped');
      const success = this.take(' ✓');
      const failure = this.take(' ✗');
      items.push({ value, dropped, success, failure });
    } while (this.take(', '));
    if (!this.take('}')) this.fail('group');
    // Modifiers and a label, as written: no space in them (a label may hold spaces, in brackets).
    const mods = /^[^\s[\])},]*(\[[^\]]*\])?/.exec(this.rest());
    this.at += mods?.[0].length ?? 0;
    const successes = items.filter((item) => item.success).length;
    const failures = items.filter((item) => item.failure).length;
    const note = this.countsNote();
    if (note !== undefined) {
      this.terms.push({ notation: 'group', marks: [successes, failures], stated: note });
      return { value: new Fraction(BigInt(successes - failures)) };
    }
    let value = new Fraction(0n);
    for (const item of items) if (!item.dropped) value = value.add(item.value);
    // A pool (one item) adds up its terms, which carry their own counts.
    return items.length > 1 ? { value, marks: [successes, failures] } : { value };
  }

  /** ` (2 successes)`, ` (2 successes, 1 failure)`. */
  private countsNote(): [number, number] | undefined {
    const note = /^ \((\d+) successe?s?(?:, (\d+) failures?)?\)/.exec(this.rest());
    if (note === null) return undefined;
    this.at += note[0].length;
    return [Number(note[1]), Number(note[2] ?? 0)];
  }

  /** `notation[label] [dice] (note) ×K`, or undefined when no term stands here. */
  private term(): Parsed | undefined {
    const head = /^([^\s[]+)(\[[^\]]*\])? \[/.exec(this.rest());
    if (head === null || !/d/i.test(head[1]!)) return undefined;
    const notation = head[1]!;
    let depth = 0;
    for (const char of notation) {
      if (char === '(' || char === '{') depth++;
      if (char === ')' || char === '}') depth--;
      if (depth < 0) return undefined;
    }
    if (depth !== 0) return undefined;
    this.at += head[0].length;
    const close = this.text.indexOf(']', this.at);
    if (close < 0) this.fail('dice list');
    const list = this.text.slice(this.at, close);
    this.at = close + 1;
    const fate = /d[fF]/.test(notation);
    let sum = new Fraction(0n);
    let successes = 0;
    let failures = 0;
    let givenSum: Fraction | undefined;
    let partial = false;
    const tokens = list.split(' ').filter((token) => token !== '');
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token === 'crit' || token === 'fumble') continue;
      if (token === '…') {
        // `… 970 more` or `… 970 more = 3512`: the dice not listed, and the kept sum when it matters.
        if (tokens[i + 3] === '=') givenSum = new Fraction(BigInt(tokens[i + 4]!));
        partial = true;
        break;
      }
      if (token.startsWith('(')) continue; // does not count
      const standing = token.split('→').at(-1)!;
      const value = (part: string): Fraction => {
        const bare = part.replace(/[✓✗!]/g, '');
        const recorded = bare.includes('↑') || bare.includes('↓') ? bare.split(/[↑↓]/)[1]! : bare;
        if (fate && recorded === '+') return new Fraction(1n);
        if (fate && recorded === '-') return new Fraction(-1n);
        if (!/^-?\d+$/.test(recorded)) this.fail(`die ${part}`);
        return new Fraction(BigInt(recorded));
      };
      const count = (part: string) => {
        if (part.includes('✓')) successes++;
        if (part.includes('✗')) failures++;
      };
      if (standing.includes('=')) {
        const merged = standing.split('=').at(-1)!;
        sum = sum.add(value(merged));
        count(merged);
      } else {
        for (const part of standing.split('!+')) {
          sum = sum.add(value(part));
          count(part);
        }
      }
    }
    let value = givenSum ?? sum;
    const marks: [number, number] | undefined = partial ? undefined : [successes, failures];
    const note = this.countsNote();
    const sets = /^ \((\d+) sets?(?:: [^)]*)?\)/.exec(this.rest());
    if (note !== undefined) {
      value = new Fraction(BigInt(note[0] - note[1]));
      this.terms.push({ notation, marks: [successes, failures], stated: note });
    } else if (sets !== null) {
      this.at += sets[0].length;
      value = new Fraction(BigInt(sets[1]!));
    } else {
      const other = /^ \((no sets|sets of [^)]*)\)/.exec(this.rest());
      if (other !== null) this.at += other[0].length;
      this.terms.push({ notation, marks: [successes, failures], stated: undefined });
    }
    const times = /^ ×(\d+)/.exec(this.rest());
    if (times !== null) {
      this.at += times[0].length;
      value = value.mul(new Fraction(BigInt(times[1]!)));
    }
    return { value, marks };
  }

  /** The rest of the line after ` = `. */
  end(): string {
    if (!this.take(' = ')) this.fail('the total');
    return this.rest();
  }
}

/** Reads a text form line and evaluates it. Throws when the line does not follow the documented form. */
export function readRollText(text: string): ReadLine {
  const reader = new LineReader(text);
  const parsed = reader.sum();
  const rest = reader.end();
  const counts = /^(\d+) successe?s?(?: - (\d+) failures? = (-?\d+))?/.exec(rest);
  let value = parsed.value;
  let statedCounts: ReadLine['statedCounts'];
  let stated: number;
  if (counts !== null) {
    statedCounts = {
      successes: Number(counts[1]),
      failures: counts[2] === undefined ? undefined : Number(counts[2]),
    };
    stated = counts[3] === undefined ? Number(counts[1]) : Number(counts[3]);
    // The whole roll is one counting term or group: its marks are the counts, or when not all its
    // dice are listed, the counts stated are all a reader has.
    if (parsed.marks !== undefined) {
      const [successes, failures] = parsed.marks;
      if (successes !== statedCounts.successes || failures !== (statedCounts.failures ?? 0)) {
        throw new Error(`the marks (${successes} ✓, ${failures} ✗) disagree with the counts stated: ${text}`);
      }
      value = new Fraction(BigInt(successes - failures));
    } else if (!/…/.test(text)) value = parsed.value;
    else value = new Fraction(BigInt(stated));
  } else {
    const number = /^-?\d+/.exec(rest);
    if (number === null) throw new Error(`no total in: ${text}`);
    stated = Number(number[0]);
  }
  return { value, rounded: Number(value.floor()), stated, statedCounts, terms: reader.terms };
}

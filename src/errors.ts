// The engine's error family. Each carries the stable API code the service answers with; every
// message is safe to put on a web page (no character a formula cannot contain is ever quoted).

export type ApiErrorCode =
  | 'invalid_request'
  | 'invalid_formula'
  | 'too_many_dice'
  | 'too_complex'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'not_found';

/** Base of every error the engine throws on purpose. */
export abstract class DiceError extends Error {
  abstract readonly code: ApiErrorCode;
}

/**
 * A formula or bonus fragment that does not parse or breaks a rule of docs/language.md
 * (including an unlisted trailing word and the per-roll dice limit).
 */
export class FormulaError extends DiceError {
  readonly code = 'invalid_formula' as const;
  constructor(
    /** Human text without the location prefix, e.g. "Expected a number of sides". */
    readonly detail: string,
    /** Which item: "formula", "bonuses[1]"; the service prefixes batch items ("rolls[3].formula"). */
    readonly item: string,
    /** 1-based column in that item's text, or undefined for rules about the whole roll. */
    readonly column: number | undefined,
    /** What the parser expected at the column (readable names), empty for rule violations. */
    readonly expected: readonly string[] = [],
  ) {
    super(FormulaError.compose(item, column, detail));
    this.name = 'FormulaError';
  }

  static compose(item: string, column: number | undefined, detail: string): string {
    return column === undefined ? `${item}: ${detail}` : `${item}, column ${column}: ${detail}`;
  }

  /** The same error, located inside a larger request (for a batch: `rolls[3]`). */
  within(prefix: string): FormulaError {
    return new FormulaError(this.detail, `${prefix}.${this.item}`, this.column, this.expected);
  }
}

/** A request that is well-formed JSON but contradicts itself (an `adv` term plus `advantage`). */
export class RequestError extends DiceError {
  readonly code = 'invalid_request' as const;
  constructor(message: string) {
    super(message);
    this.name = 'RequestError';
  }
}

/** A batch whose dice together exceed the batch budget. */
export class TooManyDiceError extends DiceError {
  readonly code = 'too_many_dice' as const;
  constructor(
    readonly budget: number,
    readonly requested: number,
  ) {
    super(`This batch asks for ${requested} dice; a batch may roll at most ${budget} dice in total.`);
    this.name = 'TooManyDiceError';
  }
}

/** The random source failed; the service answers 500 internal_error and the caller may retry. */
export class RandomSourceError extends DiceError {
  readonly code = 'internal_error' as const;
  constructor(options?: { cause?: unknown }) {
    super('The random source failed; please try again.', options);
    this.name = 'RandomSourceError';
  }
}

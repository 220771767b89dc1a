// The two refusals of the distribution engine: a formula whose exact answer costs more than the
// budget (too_complex), and a construct the engine does not know yet (named, never guessed at).

import { DiceError, FormulaError } from '../errors.js';

/** The exact answer would cost more than the engine's fixed budget (docs/stats.md). */
export class TooComplexError extends DiceError {
  readonly code = 'too_complex' as const;
  constructor(message: string) {
    super(message);
    this.name = 'TooComplexError';
  }
}

/** A construct of the language the engine cannot compute yet: refused, never approximated. */
export function notYetSupported(what: string, item = 'formula', column?: number): FormulaError {
  return new FormulaError(`${what} is not yet supported by /v1/stats.`, item, column);
}

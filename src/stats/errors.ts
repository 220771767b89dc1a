// The refusals of the distribution engine: a construct it does not know yet (named, never guessed
// at), and too_complex (src/errors.ts, the one vocabulary), re-exported for the engine's modules.

import { FormulaError } from '../errors.js';

export { TooComplexError } from '../errors.js';

/** A construct of the language the engine cannot compute yet: refused, never approximated. */
export function notYetSupported(what: string, item = 'formula', column?: number): FormulaError {
  return new FormulaError(`${what} is not yet supported by /v1/stats.`, item, column);
}

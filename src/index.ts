// fairdice's library entry: parse a formula, count its dice, roll it, and compute the exact
// distribution of its total. Pure: no HTTP, no tRPC.

export type { ChainResult, HeadComparison, VerifyResult } from '@fairdice/client/verify';
export {
  canonicalJson,
  commitmentOf,
  compareHeads,
  entryMatchesHead,
  GENESIS_PREV,
  jwkThumbprint,
  receiptHash,
  verifyChain,
  verifyEntry,
  verifyHead,
  verifyReceipt,
  verifyReveal,
} from '@fairdice/client/verify';
export * from './errors.js';
// Every node of the syntax tree, so that a union such as DiceModifier names no type left out.
export type * from './formula/ast.js';
export type { ParseCacheOptions } from './formula/cache.js';
export { ParseCache, parseCache } from './formula/cache.js';
export type { Deprecation, GroupPlan, PreparedRoll, PrepareOptions } from './formula/index.js';
export { countDice, prepareRoll } from './formula/index.js';
export type { ParseFormulaOptions, ParseFragmentOptions } from './formula/parse.js';
export { parseFormula, parseFragment } from './formula/parse.js';
export { Rational } from './formula/rational.js';
export { LIMITS, TAG_PATTERN } from './limits.js';
export type { SamplingMethod } from './roll/random.js';
export { createCryptoRandom, createSampler, cryptoRandom, WordSampler } from './roll/random.js';
export type { RollOptions, ThrowBudget } from './roll/roll.js';
export { roll, rollPrepared } from './roll/roll.js';
export type {
  AdvantageState,
  DieGroup,
  DieThrow,
  ExpressionResult,
  GroupItemResult,
  RandomSource,
  RollRequest,
  RollResponse,
} from './roll/types.js';
export { ADVANTAGE_STATES } from './roll/types.js';
export type {
  Percentiles,
  StatsBatchResponse,
  StatsDistribution,
  StatsListing,
  StatsOptions,
  StatsOutcome,
  StatsRequest,
  StatsResponse,
  StatsTarget,
  StatsVersus,
  Truncation,
} from './stats/distribution.js';
export {
  checkDistribution,
  checkDistributions,
  distribution,
  distributions,
  PERCENTILES,
} from './stats/distribution.js';
export type { Ed25519Jwk, Jwks, Receipt, ReceiptBody, SignedRequest } from './trust/receipt.js';

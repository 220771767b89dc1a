// fairdice's library entry: parse a formula, count its dice, roll it. Pure: no HTTP, no tRPC.
// (The engine modules re-exported here are built by issue 2; this file is the contract.)

export * from './errors.js';
export { LIMITS, TAG_PATTERN } from './limits.js';
export type { AdvantageState, DieGroup, RandomSource, RollRequest, RollResponse } from './roll/types.js';
export { ADVANTAGE_STATES } from './roll/types.js';

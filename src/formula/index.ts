// The language's public module: everything its back ends, the roller (src/roll) and the exact
// distribution engine (src/stats), and the rest of fairdice may use. Text becomes a checked tree
// (parse.ts, through the cache), a request becomes a roll plan (compile.ts, plan.ts); a back end
// reads the plan, compares values with `within` / `meets` and evaluates a plan's expression
// exactly with `evaluate` and Rational. The page at / checks a formula as it is typed through this
// module too, so the language imports nothing of Node. Everything else in src/formula is its own.

export { FormulaError } from '../errors.js';

export type {
  AdvantageModifier,
  CallNode,
  ClampModifier,
  CompareOperator,
  ComparePoint,
  CriticalModifier,
  DiceModifier,
  DiceNode,
  DropModifier,
  ExplodeModifier,
  ExpressionNode,
  FailureModifier,
  FlatNode,
  FormulaNode,
  FunctionName,
  GroupModifier,
  GroupNode,
  KeepModifier,
  LabelNode,
  MatchModifier,
  MultiplyModifier,
  NegateNode,
  PowerNode,
  ProductNode,
  RerollModifier,
  Sign,
  SuccessModifier,
  SumNode,
  TagNode,
  TermNode,
  UniqueModifier,
} from './ast.js';
export type { ParseCacheOptions } from './cache.js';
export { ParseCache, parseCache } from './cache.js';
export { compareBounds, meets, within } from './compare.js';
export type { PrepareOptions } from './compile.js';
export { countDice, prepareRoll } from './compile.js';
export type { DiceLookup, DiceOutcome, Evaluated } from './evaluate.js';
export { evaluate } from './evaluate.js';
export type { ParseFormulaOptions, ParseFragmentOptions } from './parse.js';
export { parseFormula, parseFragment } from './parse.js';
export type {
  ClampPlan,
  CountPlan,
  Deprecation,
  ExplodePlan,
  ExpressionPlan,
  GroupExpressionPlan,
  GroupPlan,
  KeepPlan,
  MatchPlan,
  ModifierPlan,
  PoolExpressionPlan,
  PoolPlan,
  PreparedRoll,
  RerollPlan,
  RollRequest,
  UniquePlan,
  ValueRange,
} from './plan.js';
export { KeepRule, unhandledKind } from './plan.js';
export { Rational } from './rational.js';
export { diceTermsOf } from './walk.js';

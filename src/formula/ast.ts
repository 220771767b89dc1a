// The formula's syntax tree: what was written, as plain data (no classes, no functions, no
// cycles), so it can be printed and compared. Built by the grammar's actions (grammar/dice.peggy),
// checked by src/formula/check.ts: a tree returned by parseFormula/parseFragment obeys every rule
// of docs/language.md, and the plan compiler (src/formula/compile.ts) turns it into the roll plan
// the back ends read (src/formula/plan.ts).
//
// Shape: a formula is a sum of terms (`FormulaNode.terms`). A plain sum has only `dice` and
// `flat` terms, each carrying its sign. Arithmetic adds parentheses (`sum`), products, quotients
// and remainders (`product`), powers (`power`), a minus that is not a term's own sign (`negate`),
// functions (`call`) and braces (`group`), which nest.

export type Sign = 1 | -1;

export type CompareOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A compare point: a value meets it when `value <operator> point.value`. */
export interface ComparePoint {
  operator: CompareOperator;
  value: number;
}

/** `khN`/`kN` (highest) or `klN` (lowest). */
export interface KeepModifier {
  kind: 'keep';
  mode: 'highest' | 'lowest';
  amount: number;
  column: number;
}

/** `dhN` (highest) or `dlN` / `dN` (lowest). */
export interface DropModifier {
  kind: 'drop';
  mode: 'highest' | 'lowest';
  amount: number;
  column: number;
}

/** `adv` / `dis`: keep the highest / lowest one die. */
export interface AdvantageModifier {
  kind: 'advantage';
  mode: 'advantage' | 'disadvantage';
  column: number;
}

/**
 * `!` (explode), `!p` (penetrate: every extra is recorded minus 1), `!!` (compound: a die's
 * throws merge into one recorded value) or `!!p` (both), each optionally on a compare point (`!>=9`). Without
 * one (`compare: null`) a die explodes on its largest face.
 */
export interface ExplodeModifier {
  kind: 'explode';
  penetrate: boolean;
  compound: boolean;
  compare: ComparePoint | null;
  column: number;
}

/** `rX` (reroll while X, capped) or `roX` (reroll at most once). */
export interface RerollModifier {
  kind: 'reroll';
  once: boolean;
  compare: ComparePoint;
  column: number;
}

/**
 * `u` / `uo` (unique): reroll a die while (at most once for `uo`) its value equals an earlier
 * die's of the term; with a compare point only values meeting it are considered.
 */
export interface UniqueModifier {
  kind: 'unique';
  once: boolean;
  compare: ComparePoint | null;
  column: number;
}

/** `mN` (report the values shown by at least N kept dice) or `mtN` (count them as the total). */
export interface MatchModifier {
  kind: 'match';
  total: boolean;
  amount: number;
  column: number;
}

/** `xK`: multiply the group's contribution by K. */
export interface MultiplyModifier {
  kind: 'multiply';
  factor: number;
  column: number;
}

/** `minN` / `maxN`: a throw below / above N counts as N. */
export interface ClampModifier {
  kind: 'clamp';
  bound: 'min' | 'max';
  value: number;
  column: number;
}

/** A compare point standing on its own: count the kept values meeting it as successes. */
export interface SuccessModifier {
  kind: 'success';
  compare: ComparePoint;
  column: number;
}

/** `fP`: count the kept values meeting P as failures (needs a success point in the same term). */
export interface FailureModifier {
  kind: 'failure';
  compare: ComparePoint;
  column: number;
}

/** `csP` / `cfP`: what `naturalHigh` / `naturalLow` mean for this term (the face meets P). */
export interface CriticalModifier {
  kind: 'critical';
  range: 'success' | 'failure';
  compare: ComparePoint;
  column: number;
}

export type DiceModifier =
  | KeepModifier
  | DropModifier
  | AdvantageModifier
  | ExplodeModifier
  | RerollModifier
  | MultiplyModifier
  | ClampModifier
  | SuccessModifier
  | FailureModifier
  | CriticalModifier
  | UniqueModifier
  | MatchModifier;

/** A label written after a term or a group, `[fire]`: text for the caller, never interpreted. */
export interface LabelNode {
  text: string;
  column: number;
}

export interface DiceNode {
  kind: 'dice';
  sign: Sign;
  /** Dice written (1 when omitted: `d20`); for a computed count, its value once checked. */
  count: number;
  /** A computed count (`(4-2)d10`): a sum without dice, evaluated by the parser into `count`. */
  countExpression?: SumNode;
  /** Computed sides (`3d(2*6)`): a sum without dice, evaluated by the parser into `sides`. */
  sidesExpression?: SumNode;
  countWritten: boolean;
  /** Faces of one die: N for `dN`, 100 for `d%`, 3 for `dF`, the number listed for `d{...}`. */
  sides: number;
  /** Written as `d%`. */
  percentile: boolean;
  /**
   * Only for Fate (`dF`: -1, 0, 1) and custom dice (`d{1,1,2,3,5,8}`): the faces in written order,
   * each equally likely (repeats allowed). Absent for a standard die, whose faces are 1..sides.
   */
  faces?: number[];
  /** Present (true) only for `dF`. */
  fate?: true;
  /**
   * In written order; applied per die in the fixed order clamp, reroll, explode, compound, then
   * keep/drop, success/failure counting, multiply (docs/language.md).
   */
  modifiers: DiceModifier[];
  /** Present only when written. */
  label?: LabelNode;
  /** 1-based column of the term (after its sign). */
  column: number;
  sidesColumn: number;
}

/** An integer. In a sum it carries the term's sign; elsewhere its sign is 1. */
export interface FlatNode {
  kind: 'flat';
  sign: Sign;
  /** The magnitude as written; the term contributes `sign * value`. */
  value: number;
  column: number;
}

/**
 * A sum in parentheses, a group's item or a function's argument: its terms added in order. A
 * `dice` or `flat` term carries its own sign; any other term after a `-` is a `negate` node.
 */
export interface SumNode {
  kind: 'sum';
  terms: ExpressionNode[];
  /** Column of the opening parenthesis; for an item or argument, of its first character. */
  column: number;
}

/** `left * right` or `left / right` (left-associative; the divisor has no dice, never zero). */
export interface ProductNode {
  kind: 'product';
  /** `%` is the remainder of truncating division (the sign of the left side). */
  operator: '*' | '/' | '%';
  left: ExpressionNode;
  right: ExpressionNode;
  /** Column of the operator. */
  column: number;
}

/** `base ^ exponent` (also `**`): the exponent has no dice and is an integer from 0 to 20. */
export interface PowerNode {
  kind: 'power';
  base: ExpressionNode;
  exponent: ExpressionNode;
  column: number;
}

/** Minus one times the operand: a `-` before anything that is not a dice term or a number's sign. */
export interface NegateNode {
  kind: 'negate';
  operand: ExpressionNode;
  column: number;
}

export type FunctionName = 'floor' | 'ceil' | 'round' | 'abs' | 'min' | 'max';

/** `floor(x)`, `ceil(x)`, `round(x)` (half away from zero), `abs(x)`: one argument; `min`/`max`: two or more. */
export interface CallNode {
  kind: 'call';
  name: FunctionName;
  arguments: SumNode[];
  column: number;
}

/** A group's own modifiers: keep/drop, a success point, a failure point. */
export type GroupModifier = KeepModifier | DropModifier | SuccessModifier | FailureModifier;

/**
 * `{A, B}mods[label]`. Two or more items: the modifiers act on the item totals. One item with
 * modifiers: a pool, the modifiers act on every die of the item (a sum of dice terms only). No
 * modifiers: the sum of the items.
 */
export interface GroupNode {
  kind: 'group';
  items: SumNode[];
  modifiers: GroupModifier[];
  label?: LabelNode;
  column: number;
}

export type ExpressionNode =
  | DiceNode
  | FlatNode
  | SumNode
  | ProductNode
  | PowerNode
  | NegateNode
  | CallNode
  | GroupNode;

/** A term of the top-level sum. */
export type TermNode = ExpressionNode;

export interface TagNode {
  word: string;
  column: number;
}

export interface FormulaNode {
  kind: 'formula';
  /** The top-level sum: its flat terms are the response's `modifiers`. */
  terms: TermNode[];
  tag: TagNode | null;
}

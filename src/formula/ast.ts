// The formula's syntax tree: what was written, as plain data. Built by the grammar's actions
// (grammar/dice.peggy), checked by parse.ts, turned into a roll plan by src/roll/prepare.ts.

export type Sign = 1 | -1;

export type CompareOperator = '=' | '<' | '<=' | '>' | '>=';

/** A reroll condition: a face meets it when `face <operator> value`. */
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

/** `dhN` (highest) or `dlN` (lowest). */
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

/** `!` (explode) or `!p` (penetrate). */
export interface ExplodeModifier {
  kind: 'explode';
  penetrate: boolean;
  column: number;
}

/** `rX` (reroll while X, capped) or `roX` (reroll at most once). */
export interface RerollModifier {
  kind: 'reroll';
  once: boolean;
  compare: ComparePoint;
  column: number;
}

/** `xK`: multiply the group's contribution by K. */
export interface MultiplyModifier {
  kind: 'multiply';
  factor: number;
  column: number;
}

export type DiceModifier =
  | KeepModifier
  | DropModifier
  | AdvantageModifier
  | ExplodeModifier
  | RerollModifier
  | MultiplyModifier;

export interface DiceNode {
  kind: 'dice';
  sign: Sign;
  /** Dice written (1 when omitted: `d20`). */
  count: number;
  countWritten: boolean;
  sides: number;
  /** Written as `d%`. */
  percentile: boolean;
  /** In written order; applied in the fixed order reroll, explode, keep/drop, multiply. */
  modifiers: DiceModifier[];
  /** 1-based column of the term (after its sign). */
  column: number;
  sidesColumn: number;
}

export interface FlatNode {
  kind: 'flat';
  sign: Sign;
  /** The magnitude as written; the term contributes `sign * value`. */
  value: number;
  column: number;
}

export type TermNode = DiceNode | FlatNode;

export interface TagNode {
  word: string;
  column: number;
}

export interface FormulaNode {
  kind: 'formula';
  terms: TermNode[];
  tag: TagNode | null;
}

// The shapes of the answers the page reads, as docs/api.md describes them. Fields a server may
// not send yet (its language edition, stats, tables) are optional and the page works without them.

export interface DieThrow {
  die: number;
  kind: 'roll' | 'reroll' | 'explode';
  value: number;
  face?: number;
}

export interface DieGroup {
  sides: number;
  sign: 1 | -1;
  results: number[];
  kept: number[];
  keptFlags?: boolean[];
  multiplier: number;
  total: number;
  naturalHigh: boolean;
  naturalLow: boolean;
  faces?: number[];
  label?: string;
  successes?: number;
  /** `m` / `mt`: the values shown by at least N kept dice, ascending. */
  matches?: number[];
  failures?: number;
  compounded?: true;
  throws?: DieThrow[];
}

export interface RollResponse {
  formula: string;
  total: number;
  dice: DieGroup[];
  modifier?: number;
  receipt?: Receipt;
}

export interface StatsOutcome {
  total: number;
  probability: number;
  atLeast: number;
  atMost: number;
}

export interface StatsResponse {
  formula: string;
  min: number;
  max: number;
  mean: number;
  sd: number;
  listing: 'full' | 'probabilities' | 'summary';
  outcomes: StatsOutcome[];
  percentiles: Record<string, number> | null;
}

export interface Receipt {
  id: string;
  time: string;
  kid: string;
  request: Record<string, unknown>;
  roll: RollResponse;
  table?: string;
  seq?: number;
  prev?: string;
  signature: string;
}

export interface ApiErrorBody {
  error?: { code?: string; message?: string };
}

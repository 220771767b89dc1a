// The shapes of the answers the page reads: the client package's types, inferred from the one
// declaration of each answer that the service also validates with (packages/client/src/shapes).
export type {
  DieGroup,
  DieThrow,
  Jwks,
  Receipt,
  ReportEntry,
  RevealEntry,
  RollResponse,
  SealedEntry,
  SealedRoll,
  StatsOutcome,
  StatsResponse,
  TableEntry,
  TableHead,
  TableReport,
  TableRollResponse,
} from '../packages/client/src/types.js';

/** Any error body, read defensively: a proxy in front of the service may answer with anything. */
export interface ApiErrorBody {
  error?: { code?: string; message?: string };
}

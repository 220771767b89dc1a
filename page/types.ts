// The shapes of the answers the page reads: the client package's types (packages/client), which
// test/client/contract.test.ts holds equal to what the server answers (docs/client.md).
export type {
  DieGroup,
  DieThrow,
  Jwks,
  Receipt,
  RollResponse,
  StatsOutcome,
  StatsResponse,
} from '../packages/client/src/types.js';

/** Any error body, read defensively: a proxy in front of the service may answer with anything. */
export interface ApiErrorBody {
  error?: { code?: string; message?: string };
}

// Schema failures in the caller's terms: the one invalid_request message for an input that breaks
// its operation's zod schema, whichever edge (REST or tRPC) validated it. Messages never quote
// library text or caller-supplied markup.
import { z } from 'zod';
import { RequestError } from '../errors.js';

type Issue = z.core.$ZodIssue;

const SAFE_KEY = /^[A-Za-z0-9_]{1,40}$/;

/** `rolls[3].formula`; an unsafe key (one that could hold markup) is described, not quoted. */
export function describePath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && SAFE_KEY.test(key)) text += text === '' ? key : `.${key}`;
    else text += text === '' ? '(a field)' : '.(a field)';
  }
  return text;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The raw input, when the caller has it: it tells a missing field from a wrong-typed one. */
export interface RawInput {
  value: unknown;
  /** The input came from a URL query, where a repeated parameter arrives as an array. */
  fromQuery?: boolean;
}

/** A size or value bound: "tags must have at most 20 items.", "formula must be at least 1 character long." */
function describeBound(where: string, origin: string, side: 'at least' | 'at most', limit: number): string {
  if (origin === 'string')
    return `${where} must be ${side} ${plural(limit, 'character', 'characters')} long.`;
  if (origin === 'array') return `${where} must have ${side} ${plural(limit, 'item', 'items')}.`;
  return `${where} must be ${side} ${limit}.`;
}

function describeIssue(issue: Issue, input: RawInput | undefined): string {
  const where = issue.path.length === 0 ? 'The request' : describePath(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (input !== undefined && valueAt(input.value, issue.path) === undefined) {
        return issue.path.length === 0 ? 'The request needs a JSON object body.' : `${where} is required.`;
      }
      // A query parameter repeated (`?formula=1d6&formula=1d8`) arrives as an array.
      if (
        input?.fromQuery === true &&
        issue.expected === 'string' &&
        Array.isArray(valueAt(input.value, issue.path))
      ) {
        return `${where} was given more than once; give it once.`;
      }
      return `${where} must be ${TYPE_NAMES[issue.expected] ?? 'of another type'}.`;
    case 'too_small':
      return describeBound(where, issue.origin, 'at least', Number(issue.minimum));
    case 'too_big':
      return describeBound(where, issue.origin, 'at most', Number(issue.maximum));
    case 'invalid_format':
      // Each format's schema writes what it looks like: "must be lowercase letters a to z only.",
      // "must be a table's id as creating the table gave it: ...".
      return `${where} ${issue.message}`;
    case 'invalid_value':
      return `${where} must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys': {
      const keys = issue.keys.filter((key) => SAFE_KEY.test(key));
      const named = keys.length === issue.keys.length && keys.length > 0 ? `: ${keys.join(', ')}` : '';
      const at = issue.path.length === 0 ? '' : ` in ${where}`;
      return `Unknown field${issue.keys.length === 1 ? '' : 's'}${at}${named}.`;
    }
    case 'invalid_union':
      return `${where} ${issue.message}`;
    default:
      return `${where} is not valid.`;
  }
}

/**
 * One message for a schema failure: the first problem, and how many more there are. An unknown
 * field comes first: a field sent under another name is also a field missing, and the unknown
 * name is what tells the caller which.
 */
export function describeIssues(issues: readonly Issue[], input?: RawInput): string {
  const first = issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
  if (first === undefined) return 'The request is not valid.';
  const rest = issues.length - 1;
  const text = describeIssue(first, input);
  return rest === 0 ? text : `${text} (${plural(rest, 'more problem', 'more problems')} in this request.)`;
}

/**
 * The input validated by `schema`, or a RequestError (invalid_request) describing the first
 * problem. Synchronous for the schemas of this service; a schema with an asynchronous refinement
 * is parsed asynchronously, so the result may be a promise.
 */
export function parseInput<T>(schema: z.ZodType<T>, raw: RawInput): T | Promise<T> {
  let result: z.ZodSafeParseResult<T>;
  try {
    result = schema.safeParse(raw.value);
  } catch (error) {
    // zod throws (rather than reports) only when the schema needs parseAsync.
    if (!(error instanceof z.core.$ZodAsyncError)) throw error;
    return schema.safeParseAsync(raw.value).then((late) => {
      if (late.success) return late.data;
      throw new RequestError(describeIssues(late.error.issues, raw));
    });
  }
  if (result.success) return result.data;
  throw new RequestError(describeIssues(result.error.issues, raw));
}

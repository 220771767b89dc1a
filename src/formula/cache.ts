// A bounded cache of parsed formulas, in front of parse.ts. Real traffic repeats itself (bots and
// character sheets send `1d20+5` all day), so a repeated text skips the parser and its checks.
// Only successes are cached: a text that fails is parsed again each time, so every request gets
// its own FormulaError (with its own item and stack), and bad input never fills the cache.
//
// Cached nodes are shared by every later request with the same text, so they are deep-frozen
// before they are stored: a consumer that tried to change one would throw (modules are strict),
// never corrupt another request's roll.
//
// A Map in insertion order is the whole LRU (a hit moves its key to the end unless it moved
// recently, an insert past the bound drops the first key): two operations are needed, and this
// keeps the engine free of runtime dependencies. See docs/performance.md#the-parse-cache.

import { LIMITS, TAG_PATTERN } from '../limits.js';
import type { FormulaNode } from './ast.js';
import { type ParseFormulaOptions, type ParseFragmentOptions, parseFormula, parseFragment } from './parse.js';

/**
 * Every option of parseFormula is either part of the cache key (`tags`) or only changes error
 * messages, which are never cached (`item`). A new option fails this check until it is one or
 * the other: add it to `formulaKey` below if it changes the parse result.
 */
type UnkeyedFormulaOption = Exclude<keyof ParseFormulaOptions, 'tags' | 'item'>;
type UnkeyedFragmentOption = Exclude<keyof ParseFragmentOptions, 'item'>;
const everyOptionKeyed: [UnkeyedFormulaOption | UnkeyedFragmentOption] extends [never] ? true : false = true;
void everyOptionKeyed;

export interface ParseCacheOptions {
  /** Entries kept (default 1000); the least recently used goes first. 0 turns the cache off. */
  readonly maxEntries?: number | undefined;
  /** Longer texts (default: over 64 characters) are parsed every time and never stored. */
  readonly maxTextLength?: number | undefined;
}

export class ParseCache {
  readonly maxEntries: number;
  readonly maxTextLength: number;
  readonly #entries = new Map<string, { readonly node: FormulaNode; stamp: number }>();
  /** Counts stores and moves; an entry's stamp is the count when it was stored or last moved. */
  #tick = 0;
  readonly #stayFor: number;

  constructor(options: ParseCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.maxTextLength = options.maxTextLength ?? 64;
    this.#stayFor = Math.floor(this.maxEntries / 2);
    for (const [name, value] of Object.entries({
      maxEntries: this.maxEntries,
      maxTextLength: this.maxTextLength,
    })) {
      if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} is a non-negative integer`);
    }
  }

  /** parseFormula, through the cache: the same node (frozen) or the same FormulaError. */
  formula(text: string, options?: ParseFormulaOptions): FormulaNode {
    const key = this.#cacheable(text) ? formulaKey(text, options?.tags) : undefined;
    if (key === undefined) return parseFormula(text, options);
    return this.#hit(key) ?? this.#store(key, parseFormula(text, options));
  }

  /** parseFragment, through the cache: the same node (frozen) or the same FormulaError. */
  fragment(text: string, options?: ParseFragmentOptions): FormulaNode {
    if (!this.#cacheable(text)) return parseFragment(text, options);
    // A key starting with NUL is never a text itself (see formulaKey): a bonus never meets a formula.
    const key = `\0B${text}`;
    return this.#hit(key) ?? this.#store(key, parseFragment(text, options));
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
  }

  #cacheable(text: string): boolean {
    return this.maxEntries > 0 && typeof text === 'string' && text.length <= this.maxTextLength;
  }

  #hit(key: string): FormulaNode | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Used entries move last, so eviction (the first key) takes the least recently used. An
    // entry stored or moved within the last maxEntries / 2 stores and moves stays where it is:
    // moving costs a delete and an insert on every hit of a repeated formula, and such an entry
    // still outlives at least maxEntries / 2 lookups of other texts after this one.
    if (this.#tick - entry.stamp > this.#stayFor) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.stamp = ++this.#tick;
    }
    return entry.node;
  }

  #store(key: string, node: FormulaNode): FormulaNode {
    deepFreeze(node);
    this.#entries.set(key, { node, stamp: ++this.#tick });
    if (this.#entries.size > this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    return node;
  }
}

/**
 * A formula without tags is its own key: the text as received, whose hash the engine computes
 * once per string, where a key built by concatenation would be a new string to hash on every
 * lookup. Every other key starts with NUL, so a text is used as itself only when its first
 * character is not a control character: `\0F<tags joined by commas>|<text>` (and for texts
 * that start with a control character, the same with no tags), or undefined (do not cache) when
 * a tag could make the key ambiguous: a tag is letters only (TAG_PATTERN), so the first `|`
 * always ends the tag list. The service checks tags before parsing; only a library caller can
 * send others.
 */
function formulaKey(text: string, tags: readonly string[] | undefined): string | undefined {
  if (tags === undefined || tags.length === 0) return text.charCodeAt(0) >= 0x20 ? text : `\0F|${text}`;
  if (tags.length > LIMITS.tagsPerRoll) return undefined;
  for (const tag of tags) if (typeof tag !== 'string' || !TAG_PATTERN.test(tag)) return undefined;
  return `\0F${tags.join(',')}|${text}`;
}

/** Freezes `value` and everything reachable from it through own enumerable properties. */
export function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child);
  }
  Object.freeze(value);
  return value;
}

/** The cache every roll uses unless PrepareOptions.parseCache names another. */
export const parseCache = new ParseCache();

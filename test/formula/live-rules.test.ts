// The grammar's per-parse initializer holds on to the last parse's rule functions, so their
// optimised code survives a spell without parsing (docs/performance.md#the-parsers-optimised-code-kept-alive). It lists them
// by name: this keeps that list equal to the grammar's rules, so a new rule is never left out
// (a misspelt or renamed one already fails every parse with a ReferenceError).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import peggy from 'peggy';
import { describe, expect, it } from 'vitest';
import { parseFormula } from '../../src/formula/parse.js';

const grammar = readFileSync(fileURLToPath(new URL('../../grammar/dice.peggy', import.meta.url)), 'utf8');

describe('liveRules in grammar/dice.peggy', () => {
  it('names every rule of the grammar once, and nothing else', () => {
    const ast = peggy.parser.parse(grammar, {
      grammarSource: 'dice.peggy',
      reservedWords: peggy.RESERVED_WORDS,
    });
    const rules = ast.rules.map((rule) => `peg$parse${rule.name}`);
    const block = /liveRules = \[([^\]]*)\];/.exec(grammar);
    expect(block).not.toBeNull();
    const listed = block![1]!
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    expect(rules.length).toBeGreaterThan(50);
    expect([...listed].sort()).toEqual([...rules].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('the parser built from it parses (every listed name exists in the generated code)', () => {
    expect(parseFormula('4d6kh3+2').terms).toHaveLength(2);
    expect(parseFormula('{1d8!, 1d6!}kh1 fire', { tags: ['fire'] }).tag?.word).toBe('fire');
  });
});

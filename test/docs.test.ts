// Keeps the documentation honest mechanically: links resolve, code cites only documents that
// ship, every environment variable is documented, and the formulas docs/language.md shows in its
// tables are accepted (or refused) by the real parser.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FormulaError, parseFormula } from '../src/index.js';
import { headingsOf, tableColumn } from './support/markdown.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'docs');
const MARKDOWN = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];

const read = (file: string): string => readFileSync(file, 'utf8');
const rel = (file: string): string => relative(ROOT, file);

/** Every file under `dir`, skipping generated and installed code. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated') return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** GitHub's heading anchors of a document (test/support/markdown.ts). */
const anchorsOf = (markdown: string): Set<string> => headingsOf(markdown).anchors;

/** Relative links `[text](target)` outside code blocks and code spans. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links in README.md and docs/', () => {
  it('the docs folder holds the four references', () => {
    const names = MARKDOWN.map(rel);
    for (const name of ['docs/language.md', 'docs/api.md', 'docs/operations.md', 'docs/performance.md']) {
      expect(names).toContain(name);
    }
  });

  it.each(MARKDOWN.map((file) => [rel(file), file]))('every relative link in %s resolves', (_, file) => {
    const links = linksOf(read(file));
    const broken: string[] = [];
    for (const link of links) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? file : resolve(dirname(file), path);
      if (!existsSync(target)) {
        broken.push(link);
      } else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(read(target)).has(anchor)) {
        broken.push(`${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds links and anchors to check (the checks are not vacuous)', () => {
    expect(linksOf('see [a](docs/x.md#y) and `[b](c)` and [w](https://e.org)')).toEqual(['docs/x.md#y']);
    expect(anchorsOf('## Behind a proxy (TRUST_PROXY)\n## Coming from Roll20 / Foundry')).toEqual(
      new Set(['behind-a-proxy-trust_proxy', 'coming-from-roll20--foundry']),
    );
    expect(linksOf(read(join(ROOT, 'README.md'))).length).toBeGreaterThanOrEqual(4);
  });
});

describe('citations in code', () => {
  // This file is left out: its own samples below must cite such documents.
  const self = fileURLToPath(import.meta.url);
  const files = ['src', 'grammar', 'test', 'scripts']
    .flatMap((dir) => walk(join(ROOT, dir)))
    .filter((file) => file !== self);
  const outside = new RegExp(
    [
      `\\b(${['FORMULA', 'FORMULA-2', 'SPEC', 'DESIGN', 'STACK-NOTES'].join('|')})(\\.md)?(?![\\w-])`,
      `\\b[Ii]ssue #?\\d+`,
      `\\b(${['Errors', 'Endpoints', 'Limits', 'Versioning'].join('|')}) rule \\d`,
    ].join('|'),
  );

  it('no file cites a document that is not in the repo', () => {
    const hits = files.flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, index) => ({ line, at: `${rel(file)}:${index + 1}` }))
        .filter(({ line }) => outside.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(hits).toEqual([]);
  });

  it('every docs/ file the code cites exists', () => {
    const cited = new Set(
      files.flatMap((file) => [...read(file).matchAll(/\bdocs\/([\w-]+\.md)/g)].map((m) => m[1])),
    );
    expect(cited.size).toBeGreaterThanOrEqual(2);
    for (const name of cited) expect(existsSync(join(DOCS, name as string)), `docs/${name}`).toBe(true);
  });

  it('the pattern catches what it should', () => {
    // Spelled in two parts so that this file itself names no outside document.
    expect(outside.test(`// see FORMULA${'.md'}`)).toBe(true);
    expect(outside.test(`(SPEC${'.md'}, Errors rule 1)`)).toBe(true);
    expect(outside.test('the targets of issue 5')).toBe(true);
    expect(outside.test('const ENGINE_FORMULAS = [')).toBe(false);
    expect(outside.test('interface DiceSpec {')).toBe(false);
    expect(outside.test('// Make the spec valid; issues 12 and 13')).toBe(false);
    expect(outside.test('(STACK-NOTES: d6 35.888)')).toBe(true);
  });
});

describe('docs/operations.md', () => {
  it('names every environment variable the service reads', () => {
    const config = read(join(ROOT, 'src/config.ts'));
    const schema = config.slice(config.indexOf('EnvSchema'));
    // The keys of the config schema, and any `process.env.NAME` read elsewhere in src/.
    const elsewhere = walk(join(ROOT, 'src')).flatMap((file) =>
      [...read(file).matchAll(/\bprocess\.env(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string),
    );
    const names = new Set([
      ...[...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] as string),
      ...elsewhere,
    ]);
    expect(names.size).toBeGreaterThanOrEqual(10);
    expect(names).toContain('TRUST_PROXY');
    const operations = read(join(DOCS, 'operations.md'));
    const missing = [...names].filter((name) => !operations.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});

describe('docs/language.md examples', () => {
  const language = read(join(DOCS, 'language.md'));
  const examples = tableColumn(language, 'example');
  const refused = tableColumn(language, 'refused');

  it('finds the examples (the check is not vacuous)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(25);
    expect(refused.length).toBeGreaterThanOrEqual(15);
    expect(examples).toContain('4d6kh3');
    expect(refused).toContain('4d6kh0');
  });

  it.each(examples)('%s parses', (formula) => {
    expect(() => parseFormula(formula, { tags: ['fire'] })).not.toThrow();
  });

  it.each(refused)('%s is refused', (formula) => {
    expect(() => parseFormula(formula, { tags: ['fire'] })).toThrow(FormulaError);
  });
});

// The language's public module (src/formula/index.ts) is the one door of src/formula: the two
// back ends, the roller (src/roll) and the exact distribution engine (src/stats), import only it
// from the language, and only the wire shapes (src/roll/types.ts) from each other; the language
// imports nothing of theirs but those shapes (docs/architecture.md).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as language from '../../src/formula/index.js';

const root = join(import.meta.dirname, '..', '..');

/** Every relative import of the .ts files of a folder of src/, as paths from the repository root. */
function importsOf(folder: string): Array<{ file: string; target: string }> {
  const found: Array<{ file: string; target: string }> = [];
  const dir = join(root, 'src', folder);
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']+)'/gms)) {
      const target = relative(root, join(dir, match[1]!)).replace(/\.js$/, '.ts');
      found.push({ file: `src/${folder}/${name}`, target });
    }
  }
  return found;
}

describe('the language and its back ends', () => {
  it('the roller and the stats engine import from src/formula only its public module', () => {
    const through = [...importsOf('roll'), ...importsOf('stats')].filter(({ target }) =>
      target.startsWith('src/formula/'),
    );
    expect(through.length).toBeGreaterThan(3);
    expect(through.filter(({ target }) => target !== 'src/formula/index.ts')).toEqual([]);
  });

  it('they import nothing of each other but the wire shapes', () => {
    const across = [
      ...importsOf('roll').filter(({ target }) => target.startsWith('src/stats/')),
      ...importsOf('stats').filter(
        ({ target }) => target.startsWith('src/roll/') && target !== 'src/roll/types.ts',
      ),
    ];
    expect(across).toEqual([]);
  });

  it('the language imports neither back end, but the wire shapes', () => {
    const back = importsOf('formula').filter(
      ({ target }) =>
        target.startsWith('src/stats/') || (target.startsWith('src/roll/') && target !== 'src/roll/types.ts'),
    );
    expect(importsOf('formula').length).toBeGreaterThan(10);
    expect(back).toEqual([]);
  });

  it('exports what the back ends use', () => {
    for (const name of [
      'prepareRoll',
      'countDice',
      'evaluate',
      'within',
      'meets',
      'Rational',
      'KeepRule',
      'unhandledKind',
    ]) {
      expect(language, name).toHaveProperty(name);
    }
  });
});

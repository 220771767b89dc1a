// Compiles grammar/dice.peggy into src/formula/generated/parser.js (+ .d.ts) with peggy's CLI,
// and copies the result into dist/ (tsc does not copy plain .js). Skips work when up to date.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const grammar = join(root, 'grammar', 'dice.peggy');
const outDir = join(root, 'src', 'formula', 'generated');
const parser = join(outDir, 'parser.js');
const dts = join(outDir, 'parser.d.ts');

const self = fileURLToPath(import.meta.url);
// Stale when older than the grammar or than this script (which post-processes the output).
const stale = (target) =>
  !existsSync(target) ||
  statSync(target).mtimeMs < Math.max(statSync(grammar).mtimeMs, statSync(self).mtimeMs);

/**
 * peggy builds every constant of the parser (33 expectation objects, the literals and regular
 * expressions) afresh inside `peg$parse`, on every call: about a fifth of the cost of parsing a
 * short formula, measured by `npm run bench`. They do not depend on the input, so this moves
 * them, and the five pure helpers that build expectations, to module scope. Only lines of those
 * exact shapes move; if peggy's output changes shape, nothing moves and the build says so.
 */
function hoistParserConstants(file) {
  const code = readFileSync(file, 'utf8');
  const opening = 'function peg$parse(input, options) {\n';
  const start = code.indexOf(opening);
  const constant =
    /^ {2}const peg\$[cre]\d+ = (?:"(?:[^"\\]|\\.)*"|\/(?:[^/\\\n]|\\.)+\/[a-z]*|peg\$(?:literal|class|any|end|other)Expectation\([^\n]*\));$/;
  const helper = /^ {2}function peg\$(?:literal|class|any|end|other)Expectation\([\w, ]*\) \{$/;
  const helperBody = /^ {4}return \{ type: "\w+"(?:, \w+)* \};$/;
  const hoisted = [];
  const kept = [];
  const lines = start < 0 ? [] : code.slice(start + opening.length).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (constant.test(line)) {
      hoisted.push(line.slice(2));
    } else if (helper.test(line) && helperBody.test(lines[i + 1]) && lines[i + 2] === '  }') {
      hoisted.push(line.slice(2), lines[i + 1].slice(2), '}');
      i += 2;
    } else {
      kept.push(line);
    }
  }
  if (hoisted.length === 0) {
    console.warn('build-grammar: peggy output has an unexpected shape; parser constants were NOT hoisted');
    return;
  }
  const header = '// Hoisted from peg$parse by scripts/build-grammar.mjs: built once, never mutated.';
  writeFileSync(
    file,
    `${code.slice(0, start)}${header}\n${hoisted.join('\n')}\n\n${opening}${kept.join('\n')}`,
  );
}

if (stale(parser) || stale(dts) || process.argv.includes('--force')) {
  mkdirSync(outDir, { recursive: true });
  const peggy = join(root, 'node_modules', 'peggy', 'bin', 'peggy.js');
  execFileSync(
    process.execPath,
    [
      peggy,
      '--format',
      'es',
      '--dts',
      '--allowed-start-rules',
      'Formula,Fragment',
      '--return-types',
      JSON.stringify({
        Formula: 'import("../ast.js").FormulaNode',
        Fragment: 'import("../ast.js").FormulaNode',
      }),
      '-o',
      parser,
      grammar,
    ],
    { stdio: 'inherit' },
  );
  hoistParserConstants(parser);
}

const distDir = join(root, 'dist', 'formula', 'generated');
mkdirSync(distDir, { recursive: true });
copyFileSync(parser, join(distDir, 'parser.js'));
copyFileSync(dts, join(distDir, 'parser.d.ts'));

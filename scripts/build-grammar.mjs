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
  persistParserFunctions(parser);
}

/**
 * peggy also declares all of its ~60 rule functions inside `peg$parse`, so every call creates them
 * afresh: about half a microsecond per formula, a third of parsing `4d6kh3+2`. This keeps one set:
 * the functions and the parser state move into a factory called once, and `peg$parse` only resets
 * the state (each `const`/`let` of its body becomes an assignment) and runs. Not reentrant, which
 * is safe because grammar actions only build AST nodes and never parse. Only a body made of the
 * statement shapes below is rewritten; any other shape leaves the parser as peggy wrote it.
 */
function persistParserFunctions(file) {
  const code = readFileSync(file, 'utf8');
  const opening = 'function peg$parse(input, options) {\n';
  const start = code.indexOf(opening);
  const end = start < 0 ? -1 : code.indexOf('\n}\n', start);
  const skip = (why) => console.warn(`build-grammar: parser functions NOT made persistent (${why})`);
  if (start < 0 || end < 0) return skip('no peg$parse');
  // Top-level statements of the body: each starts on a line indented by exactly two spaces.
  const statements = [];
  for (const line of code.slice(start + opening.length, end).split('\n')) {
    const top = /^ {2}[^ }]/.test(line);
    if (top || statements.length === 0) statements.push([line]);
    else statements[statements.length - 1].push(line);
  }
  const functions = [];
  const perCall = [];
  const state = new Set(['input', 'options']);
  for (const lines of statements) {
    const first = lines[0];
    if (/^ {2}function [\w$]+\(/.test(first)) {
      functions.push(...lines);
      continue;
    }
    const declaration = /^ {2}(?:const|let) (peg\$\w+)( = |;)/.exec(first);
    if (declaration) {
      state.add(declaration[1]);
      if (declaration[2] === ';') continue;
      perCall.push(first.replace(/^ {2}(?:const|let) /, '  '), ...lines.slice(1));
      continue;
    }
    if (!/^ {2}(?:options = |peg\$result = |if \(|return |$)/.test(first) && first.trim() !== '') {
      return skip(`unexpected statement: ${first.trim().slice(0, 40)}`);
    }
    perCall.push(...lines);
  }
  const indent = (lines) => lines.map((line) => (line === '' ? line : `  ${line}`));
  const factory = [
    '// peg$parse as peggy wrote it, with its functions and state kept across calls by',
    '// scripts/build-grammar.mjs (each call resets the state first).',
    'function peg$createParse() {',
    `  let ${[...state].join(', ')};`,
    ...functions,
    '',
    '  return function peg$parse(input_, options_) {',
    '    input = input_;',
    '    options = options_;',
    ...indent(perCall),
    '  };',
    '}',
    'const peg$parse = peg$createParse();',
  ];
  writeFileSync(file, `${code.slice(0, start)}${factory.join('\n')}${code.slice(end + 2)}`);
}

const distDir = join(root, 'dist', 'formula', 'generated');
mkdirSync(distDir, { recursive: true });
copyFileSync(parser, join(distDir, 'parser.js'));
copyFileSync(dts, join(distDir, 'parser.d.ts'));

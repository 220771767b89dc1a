// Compiles grammar/dice.peggy into src/formula/generated/parser.js (+ .d.ts) with peggy's CLI,
// and copies the result into dist/ (tsc does not copy plain .js). Skips work when up to date.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const grammar = join(root, 'grammar', 'dice.peggy');
const outDir = join(root, 'src', 'formula', 'generated');
const parser = join(outDir, 'parser.js');
const dts = join(outDir, 'parser.d.ts');

const stale = (target) => !existsSync(target) || statSync(target).mtimeMs < statSync(grammar).mtimeMs;

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
}

const distDir = join(root, 'dist', 'formula', 'generated');
mkdirSync(distDir, { recursive: true });
copyFileSync(parser, join(distDir, 'parser.js'));
copyFileSync(dts, join(distDir, 'parser.d.ts'));

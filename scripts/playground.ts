// The grammar playground: shows how fairdice reads a formula (AST tree, dice count) and one
// sample roll with every die marked, or where and why a formula is refused.
//
//   npm run playground -- "4d6kh3+2" [--tags fire,cold] [--advantage advantage|disadvantage]
//                          [--bonus 2 --bonus 1d4] [--json] [--trace] [--stats]
//   npm run playground                      (interactive: one formula per line)

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import peggy from 'peggy';
import type { DiceNode, FormulaNode, GroupPlan, PreparedRoll, RollRequest } from '../src/index.js';
import { DiceError, FormulaError, LIMITS, parseFormula, prepareRoll, rollPrepared } from '../src/index.js';
import { ExplodeRule } from '../src/roll/prepare.js';
import type { DieGroup, RollResponse } from '../src/roll/types.js';
import { distribution } from '../src/stats/distribution.js';
import { statsLines } from './playground-stats.js';

interface Options {
  tags: string[];
  advantage: string | undefined;
  bonuses: Array<number | string>;
  json: boolean;
  trace: boolean;
  /** Also the exact distribution of the total (scripts/playground-stats.ts). */
  stats: boolean;
  formula: string | undefined;
}

const USAGE = `usage: npm run playground -- "<formula>" [--tags a,b] [--advantage advantage|disadvantage]
                         [--bonus N|fragment]... [--json] [--trace] [--stats]
       npm run playground            (interactive prompt)`;

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    tags: [],
    advantage: undefined,
    bonuses: [],
    json: false,
    trace: false,
    stats: false,
    formula: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case '--tags':
        options.tags = value()
          .split(',')
          .filter((tag) => tag !== '');
        break;
      case '--advantage':
        options.advantage = value();
        break;
      case '--bonus': {
        const bonus = value();
        options.bonuses.push(/^-?\d+$/.test(bonus) ? Number(bonus) : bonus);
        break;
      }
      case '--json':
        options.json = true;
        break;
      case '--trace':
        options.trace = true;
        break;
      case '--stats':
        options.stats = true;
        break;
      case '--help':
      case '-h':
        throw new UsageError(USAGE);
      default:
        if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}\n${USAGE}`);
        if (options.formula !== undefined) throw new UsageError(`one formula at a time\n${USAGE}`);
        options.formula = arg;
    }
  }
  return options;
}

class UsageError extends Error {}

/** Everything the playground shows for one formula; `ok` is false when it was refused. */
function run(formula: string, options: Options): { text: string; ok: boolean } {
  const request: RollRequest = {
    formula,
    advantage: options.advantage as RollRequest['advantage'],
    bonuses: options.bonuses,
    tags: options.tags,
  };
  const trace = options.trace ? traceParse(formula) : '';
  try {
    const ast = parseFormula(formula, { tags: options.tags });
    const prepared = prepareRoll(request);
    const warnings: string[] = [];
    const roll = rollPrepared(prepared, { onDeprecation: (w) => warnings.push(`${w.item}: ${w.message}`) });
    const stats = options.stats ? distribution(request) : undefined;
    if (options.json) {
      return { text: JSON.stringify({ ast, diceCount: prepared.diceCount, roll, stats }), ok: true };
    }
    const lines = [
      trace,
      'AST',
      ...astTree(ast),
      '',
      `dice: ${prepared.diceCount}`,
      '',
      'sample roll',
      ...rollLines(prepared, roll),
      ...warnings.map((w) => `warning: ${w}`),
      ...(stats === undefined ? [] : ['', ...statsLines(stats)]),
    ];
    return { text: lines.filter((line, i) => i > 0 || line !== '').join('\n'), ok: true };
  } catch (error) {
    if (!(error instanceof DiceError)) throw error;
    const column = error instanceof FormulaError ? error.column : undefined;
    if (options.json) {
      return {
        text: JSON.stringify({ error: { code: error.code, message: error.message, column: column ?? null } }),
        ok: false,
      };
    }
    const lines = [trace];
    if (error instanceof FormulaError && column !== undefined) {
      const text = error.item === 'formula' ? formula : bonusText(error.item, options);
      if (text !== undefined) {
        lines.push(`  ${printable(text)}`, `  ${' '.repeat(column - 1)}^`);
      }
    }
    lines.push(`${error.code}: ${error.message}`);
    return { text: lines.filter((line) => line !== '').join('\n'), ok: false };
  }
}

function bonusText(item: string, options: Options): string | undefined {
  const match = /^bonuses\[(\d+)\]$/.exec(item);
  const bonus = match ? options.bonuses[Number(match[1])] : undefined;
  return typeof bonus === 'string' ? bonus : undefined;
}

/** Control characters would break the caret's alignment; show them as a dot. */
function printable(text: string): string {
  let out = '';
  for (const char of text) out += char < ' ' || char === '\u007f' ? '.' : char;
  return out;
}

// --- AST tree ---------------------------------------------------------------------------------

function astTree(ast: FormulaNode): string[] {
  const lines = ['formula'];
  const last = ast.terms.length - 1;
  ast.terms.forEach((term, i) => {
    const branch = i === last && ast.tag === null ? '└─ ' : '├─ ';
    const stem = i === last && ast.tag === null ? '   ' : '│  ';
    const sign = term.sign === -1 ? '-' : '+';
    if (term.kind === 'flat') {
      lines.push(`${branch}number ${sign}${term.value}  (column ${term.column})`);
      return;
    }
    lines.push(`${branch}dice ${sign} ${term.count}d${term.sides}  (column ${term.column})`);
    term.modifiers.forEach((modifier, j) => {
      const twig = j === term.modifiers.length - 1 ? '└─ ' : '├─ ';
      lines.push(`${stem}${twig}${describeModifier(modifier)}  (column ${modifier.column})`);
    });
  });
  if (ast.tag !== null) lines.push(`└─ tag ${ast.tag.word}  (column ${ast.tag.column})`);
  return lines;
}

function describeModifier(modifier: DiceNode['modifiers'][number]): string {
  switch (modifier.kind) {
    case 'keep':
      return `keep ${modifier.mode} ${modifier.amount}`;
    case 'drop':
      return `drop ${modifier.mode} ${modifier.amount}`;
    case 'advantage':
      return modifier.mode;
    case 'explode':
      return modifier.penetrate ? 'penetrate' : 'explode';
    case 'reroll':
      return `reroll ${modifier.once ? 'once ' : ''}when ${modifier.compare.operator} ${modifier.compare.value}`;
    case 'multiply':
      return `multiply by ${modifier.factor}`;
  }
}

// --- sample roll ------------------------------------------------------------------------------

/**
 * One line per group: each die's throws in rolling order, marked. The response does not say
 * where one die's chain ends, so the chains are recovered by replaying the group's rules.
 */
function rollLines(prepared: PreparedRoll, roll: RollResponse): string[] {
  const lines = roll.dice.map(
    (group, g) => `  ${groupHeader(prepared.groups[g]!, group)}  ${markDice(prepared.groups[g]!, group)}`,
  );
  if (roll.modifiers.length > 0) lines.push(`  modifiers ${roll.modifiers.join(' ')} = ${roll.modifier}`);
  lines.push(
    `  total ${roll.total}  (advantage: ${roll.advantageState}${roll.tag ? `, tag: ${roll.tag}` : ''})`,
  );
  lines.push('  marks: * kept  _ dropped  r rerolled away  ! exploded (next throw is its extra)');
  return lines;
}

function groupHeader(plan: GroupPlan, group: DieGroup): string {
  const sign = group.sign === -1 ? '-' : '+';
  const times = group.multiplier === 1 ? '' : ` x${group.multiplier}`;
  const naturals = `${group.naturalHigh ? ' natural high' : ''}${group.naturalLow ? ' natural low' : ''}`;
  return `${sign}${plan.count}d${group.sides}${times} = ${group.total}${naturals}:`;
}

function markDice(plan: GroupPlan, group: DieGroup): string {
  const dice: string[] = [];
  const { results, keptFlags } = group;
  let i = 0;
  while (i < results.length) {
    const throws: string[] = [];
    for (let rerolls = 0; rerolls < plan.rerollLimit; rerolls++) {
      const face = results[i]!;
      if (face < plan.rerollLow || face > plan.rerollHigh || i + 1 >= results.length) break;
      throws.push(`${face}r`);
      i++;
    }
    const keptMark = keptFlags[i] ? '*' : '_';
    let raw = results[i]!;
    let token = `${raw}${keptMark}`;
    i++;
    if (plan.explode !== ExplodeRule.None) {
      for (let extras = 0; extras < LIMITS.explodeCap && raw === plan.sides && i < results.length; extras++) {
        token += `!${results[i]}`;
        raw = results[i]! + (plan.explode === ExplodeRule.Penetrate ? 1 : 0);
        i++;
      }
    }
    throws.push(token);
    dice.push(throws.join(' '));
  }
  return dice.join(' | ');
}

// --- trace ------------------------------------------------------------------------------------

let tracedParser: peggy.Parser | undefined;

/**
 * The grammar compiled with tracing on (once, on first use), so the production parser carries
 * no trace code.
 */
function traceParse(formula: string): string {
  if (tracedParser === undefined) {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    const grammar = readFileSync(join(root, 'grammar', 'dice.peggy'), 'utf8');
    tracedParser = peggy.generate(grammar, { trace: true });
  }
  const parser = tracedParser;
  const lines: string[] = ['trace (column, event, rule)'];
  let depth = 0;
  const tracer = {
    trace(event: { type: string; rule: string; location: { start: { offset: number } } }) {
      if (event.type !== 'rule.enter') depth--;
      const column = String(event.location.start.offset + 1).padStart(3);
      lines.push(
        `${column} ${'  '.repeat(Math.max(depth, 0))}${event.type.slice(5).padEnd(5)} ${event.rule}`,
      );
      if (event.type === 'rule.enter') depth++;
    },
  };
  try {
    parser.parse(formula, { startRule: 'Formula', tracer });
  } catch {
    // The error itself is reported by the normal path below the trace.
  }
  return lines.join('\n');
}

// --- main -------------------------------------------------------------------------------------

function main(): void {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (options.formula !== undefined) {
    const { text, ok } = run(options.formula, options);
    process.stdout.write(`${text}\n`);
    if (!ok) process.exitCode = 1;
    return;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout, prompt: 'dice> ' });
  prompt.prompt();
  prompt.on('line', (line) => {
    if (line.trim() !== '') process.stdout.write(`${run(line, options).text}\n`);
    prompt.prompt();
  });
  prompt.on('close', () => process.stdout.write('\n'));
}

main();

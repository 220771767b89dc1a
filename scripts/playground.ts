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
import { type DiceTerm, describeRoll, type RollDescription, termText } from '@fairdice/client/describe';
import peggy from 'peggy';
import type {
  ComparePoint,
  DiceModifier,
  DiceNode,
  ExpressionNode,
  ExpressionResult,
  FormulaNode,
  GroupModifier,
  RollRequest,
} from '../src/index.js';
import { DiceError, FormulaError, parseFormula, prepareRoll, rollPrepared } from '../src/index.js';
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
    const description = describeRoll(roll, request);
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
      ...rollLines(description),
      ...(roll.expression === undefined ? [] : ['', ...expressionTree(roll.expression, description)]),
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

/** A tree node as the playground prints it: one line, and its children. */
interface Printed {
  line: string;
  children: Printed[];
}

function printTree(node: Printed, prefix: string, last: boolean, lines: string[], root = false): void {
  lines.push(root ? node.line : `${prefix}${last ? '└─ ' : '├─ '}${node.line}`);
  const inner = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
  node.children.forEach((child, i) => {
    printTree(child, inner, i === node.children.length - 1, lines);
  });
}

function astTree(ast: FormulaNode): string[] {
  const children = ast.terms.map(printNode);
  if (ast.tag !== null)
    children.push({ line: `tag ${ast.tag.word}  (column ${ast.tag.column})`, children: [] });
  const lines: string[] = [];
  printTree({ line: 'formula', children }, '', true, lines, true);
  return lines;
}

function printNode(node: ExpressionNode): Printed {
  const at = `  (column ${node.column})`;
  switch (node.kind) {
    case 'flat':
      return { line: `number ${node.sign === -1 ? '-' : '+'}${node.value}${at}`, children: [] };
    case 'dice':
      return {
        line: `${describeDice(node)}${at}`,
        children: node.modifiers.map((m) => ({
          line: `${describeModifier(m)}  (column ${m.column})`,
          children: [],
        })),
      };
    case 'sum':
      return { line: `( ) sum${at}`, children: node.terms.map(printNode) };
    case 'negate':
      return { line: `minus${at}`, children: [printNode(node.operand)] };
    case 'product':
      return {
        line: `${{ '*': 'times', '/': 'divided by', '%': 'remainder after dividing by' }[node.operator]}${at}`,
        children: [printNode(node.left), printNode(node.right)],
      };
    case 'power':
      return { line: `to the power${at}`, children: [printNode(node.base), printNode(node.exponent)] };
    case 'call':
      return {
        line: `${node.name}()${at}`,
        children: node.arguments.map((a) => ({
          line: `argument  (column ${a.column})`,
          children: a.terms.map(printNode),
        })),
      };
    case 'group': {
      const kind =
        node.modifiers.length === 0
          ? 'sum of items'
          : node.items.length === 1
            ? 'pool of dice'
            : 'item totals';
      const label = node.label === undefined ? '' : ` [${node.label.text}]`;
      return {
        line: `{ } group, ${kind}${label}${at}`,
        children: [
          ...node.modifiers.map((m) => ({
            line: `${describeModifier(m)}  (column ${m.column})`,
            children: [],
          })),
          ...node.items.map((item) => ({
            line: `item  (column ${item.column})`,
            children: item.terms.map(printNode),
          })),
        ],
      };
    }
  }
}

/** The evaluated tree of the response, each node with its value. */
function expressionTree(root: ExpressionResult, description: RollDescription): string[] {
  const exact = (node: { value: number; exact?: string }) => `= ${node.exact ?? node.value}`;
  const convert = (node: ExpressionResult): Printed => {
    switch (node.type) {
      case 'dice': {
        const term = description.terms[node.group]!;
        return { line: `dice #${node.group} ${termText(term)} ${exact(node)}`, children: [] };
      }
      case 'number':
        return { line: `number ${exact(node)}`, children: [] };
      case 'operation':
        return { line: `${node.operator} ${exact(node)}`, children: node.operands.map(convert) };
      case 'function':
        return { line: `${node.name}() ${exact(node)}`, children: node.arguments.map(convert) };
      case 'group': {
        const counted =
          node.successes === undefined
            ? ''
            : ` (${node.successes} successes${node.failures === undefined ? '' : `, ${node.failures} failures`})`;
        return {
          line: `group${node.label === undefined ? '' : ` [${node.label}]`} ${exact(node)}${counted}`,
          children: node.items.map((item) => ({
            line: `item ${exact(item)} ${item.kept ? 'kept' : 'dropped'}`,
            children: [convert(item.node)],
          })),
        };
      }
    }
  };
  const lines: string[] = [];
  printTree(convert(root), '  ', true, lines, true);
  return [
    `  expression (total = ${description.total}, the root rounded down)`,
    ...lines.map((line) => `  ${line}`),
  ];
}

function comparison(compare: ComparePoint): string {
  return `${compare.operator} ${compare.value}`;
}

function describeModifier(modifier: DiceModifier | GroupModifier): string {
  switch (modifier.kind) {
    case 'keep':
      return `keep ${modifier.mode} ${modifier.amount}`;
    case 'drop':
      return `drop ${modifier.mode} ${modifier.amount}`;
    case 'advantage':
      return modifier.mode;
    case 'explode': {
      const how =
        modifier.compound && modifier.penetrate
          ? 'compound and penetrate'
          : modifier.compound
            ? 'compound'
            : modifier.penetrate
              ? 'penetrate'
              : 'explode';
      return modifier.compare === null
        ? `${how} on the largest face`
        : `${how} when ${comparison(modifier.compare)}`;
    }
    case 'reroll':
      return `reroll ${modifier.once ? 'once ' : ''}when ${comparison(modifier.compare)}`;
    case 'multiply':
      return `multiply by ${modifier.factor}`;
    case 'clamp':
      return `${modifier.bound} ${modifier.value}`;
    case 'success':
      return `success when ${comparison(modifier.compare)}`;
    case 'failure':
      return `failure when ${comparison(modifier.compare)}`;
    case 'critical':
      return `critical ${modifier.range} when ${comparison(modifier.compare)}`;
    case 'unique':
      return `unique${modifier.once ? ' (reroll once)' : ''}${modifier.compare === null ? '' : ` among values ${comparison(modifier.compare)}`}`;
    case 'match':
      return `${modifier.total ? 'count' : 'list'} sets of at least ${modifier.amount} matching dice`;
  }
}

function describeDice(term: DiceNode): string {
  const sign = term.sign === -1 ? '-' : '+';
  const die = term.fate ? 'dF' : term.faces !== undefined ? `d{${term.faces.join(',')}}` : `d${term.sides}`;
  const label = term.label === undefined ? '' : ` [${term.label.text}]`;
  const computed =
    term.countExpression !== undefined || term.sidesExpression !== undefined ? '  (computed)' : '';
  return `dice ${sign} ${term.count}${die}${label}${computed}`;
}

// --- sample roll ------------------------------------------------------------------------------

/**
 * The sample roll as every face shows it (the client's description, docs/client.md): one line
 * per term with its dice and marks, the total, and the roll's text form.
 */
function rollLines(description: RollDescription): string[] {
  const termLine = (term: DiceTerm) => {
    const advantage = term.advantage === undefined ? '' : `  (with ${term.advantage})`;
    return `  ${termText(term)}  = ${term.total}${advantage}`;
  };
  return [
    ...description.terms.map(termLine),
    `  total ${description.total}  (advantage: ${description.advantage}${description.tag ? `, tag: ${description.tag}` : ''})`,
    `  as text: ${description.text}`,
    '  marks: (…) not counted  a→b a rerolled away for b  a!+b a exploded, b its extra  a+b=c compounded into c',
    '         a↑b / a↓b face a recorded as b (min/max, !p)  ✓ success  ✗ failure  crit / fumble: a natural high / low',
  ];
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
    // Both start rules, as the build compiles it: peggy drops rules no start rule reaches, and
    // the grammar's per-parse initializer names every rule (`liveRules`).
    tracedParser = peggy.generate(grammar, { trace: true, allowedStartRules: ['Formula', 'Fragment'] });
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

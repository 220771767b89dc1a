// A browser project's view of @fairdice/client's published typings: a fresh project with the
// DOM lib, no ambient types, `strict` and `skipLibCheck: false` installs the built package and
// type-checks and emits declarations. No server package and no Node typing may enter it; its
// dependencies' typings are tRPC's and zod's.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const clientDir = join(root, 'packages', 'client');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['dom', 'es2022'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: [],
    strict: true,
    skipLibCheck: false,
    declaration: true,
    emitDeclarationOnly: true,
    outDir: 'out',
  },
  include: ['src'],
};

const APP = `import {
  createDiceClient,
  describeRoll,
  type DieGroup,
  type ExpressionNode,
  isDiceError,
  type Receipt,
  type RollRequest,
  type RollResponse,
} from '@fairdice/client';

// Declaration emit must be able to name the client's type (no TS2742).
export const dice = createDiceClient('/api');
export const sameOrigin = createDiceClient({
  url: '/',
  headers: () => ({ authorization: 'Bearer example' }),
  fetch: (input, init) => fetch(input, init),
});

const tags = ['fire'] as const;
const request: RollRequest = { formula: '1d8+3 fire', bonuses: [2, '1d4'] as const, tags };

export function rollIt() {
  return dice.rollWith.mutate(request);
}
export function rollMany() {
  return dice.batch.mutate({ rolls: [request, { formula: '1d20', advantage: 'advantage' }] as const });
}
export async function totalOf(formula: string): Promise<number> {
  const roll: RollResponse = await dice.roll.query({ formula });
  return roll.total;
}
export function lineOf(roll: RollResponse): string {
  return describeRoll(roll, request).text;
}
export function codeOf(error: unknown) {
  return isDiceError(error) ? error.data.api.code : undefined;
}

// The answers' types, inferred from their schemas, are precise: no \`any\` slips through.
export function keptDice(roll: RollResponse): number[] {
  return roll.dice.flatMap((group: DieGroup) => group.kept);
}
export function operandCount(node: ExpressionNode): number {
  return node.type === 'operation' ? node.operands.length : 0;
}
export function signedAt(receipt: Receipt): string | undefined {
  return receipt.table === undefined ? undefined : \`\${receipt.table}#\${receipt.seq}\`;
}
declare const group: DieGroup;
// @ts-expect-error a DieGroup's sides is a number
export const sides: string = group.sides;
// @ts-expect-error a number node has no operands
export const none = (node: ExpressionNode & { type: 'number' }) => node.operands;

// The browser's setTimeout returns a number, not a Node Timeout.
const timer: number = setTimeout(() => undefined, 1);
clearTimeout(timer);
// @ts-expect-error Buffer is Node's, unknown in a browser project
Buffer.from('x');
// @ts-expect-error process is Node's, unknown in a browser project
process.exitCode = 1;
`;

describe('@fairdice/client typings in a browser project', () => {
  let project: string;
  /** Every file the compiler read, from the first test's run. */
  let files: string[] = [];

  beforeAll(async () => {
    expect(
      existsSync(join(clientDir, 'dist', 'index.d.ts')),
      'run `npm run build` first (npm test does)',
    ).toBe(true);
    project = await mkdtemp(join(tmpdir(), 'fairdice-consumer-'));
    await mkdir(join(project, 'src'));
    await mkdir(join(project, 'node_modules', '@fairdice'), { recursive: true });
    // As `npm install` of a local package links it; its own imports resolve beside its real path.
    await symlink(clientDir, join(project, 'node_modules', '@fairdice', 'client'), 'dir');
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await writeFile(join(project, 'src', 'app.ts'), APP);
  });

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  // Checking zod's own typings (skipLibCheck false) is most of the compiler's work.
  it('type-checks and emits declarations, with no error inside any dependency', {
    timeout: 180_000,
  }, async () => {
    const result = await run(process.execPath, [tsc, '-p', project, '--listFiles'], { cwd: project }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    const lines = result.output.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('/'))).toEqual([]);
    expect(result.code).toBe(0);
    files = lines;

    const emitted = await readFile(join(project, 'out', 'app.d.ts'), 'utf8');
    expect(emitted).toMatch(/export declare const dice: import\("@fairdice\/client"\)\.DiceClient;/);
    // Responses keep their names instead of unfolding into anonymous object types.
    const named = (type: string) => `Promise<(?:import\\("@fairdice/client"\\)\\.)?${type}>;`;
    expect(emitted).toMatch(new RegExp(`rollIt\\(\\): ${named('RollResponse')}`));
    expect(emitted).toMatch(new RegExp(`rollMany\\(\\): ${named('BatchRollResponse')}`));
  });

  it('reads no server package and no Node typing', () => {
    const dependencies = files.filter((file) => file.includes('/node_modules/'));
    console.log(`a browser project importing @fairdice/client reads ${files.length} files`);
    expect(files.some((file) => file.endsWith('/client/dist/index.d.ts'))).toBe(true);
    const forbidden =
      /\/node_modules\/(@types\/node|fastify|@fastify|pino|h3|trpc-to-openapi|zod-openapi|ioredis)\//;
    expect(dependencies.filter((file) => forbidden.test(file))).toEqual([]);
    // Only tRPC's typings and zod's (the answers' types are inferred from zod schemas) besides the
    // client's own (and TypeScript's libs).
    const packages = new Set(
      dependencies
        .filter((file) => !file.includes('/node_modules/typescript/lib/'))
        .map((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]),
    );
    expect([...packages].sort()).toEqual(['@trpc/client', '@trpc/server', 'zod']);
  });
});

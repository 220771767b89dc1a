// `npm run verify -- FILE [--head FILE] [--jwks FILE|URL] [--server URL]`: checks a fairdice
// receipt offline and prints valid or invalid and why. FILE may hold a receipt, a roll answer
// carrying one, or a table log (GET /v1/tables/{id}/rolls from the first entry: the whole chain
// is checked, and against its signed head, or the head of --head, a head held from an earlier
// read: a log shorter than its head is invalid; docs/trust.md#signed-heads). The
// keys come from --jwks (a saved /.well-known/jwks.json, or its URL), else from the server
// (--server, default http://127.0.0.1:3000). Exit code: 0 valid, 1 invalid, 2 could not check.
// docs/trust.md, "Verifying".
import { readFileSync } from 'node:fs';
import type { Jwks } from '../packages/client/src/types.js';
import { verifyChain, verifyReceipt } from '../packages/client/src/verify.js';

const USAGE = 'usage: npm run verify -- FILE [--head FILE] [--jwks FILE|URL] [--server URL]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

async function loadJwks(source: string): Promise<Jwks> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source).catch(() => fail(`cannot fetch the keys from ${source}`));
    if (!response.ok) fail(`fetching ${source} answered ${response.status}`);
    text = await response.text();
  } else {
    try {
      text = readFileSync(source, 'utf8');
    } catch {
      fail(`cannot read the key set ${source}`);
    }
  }
  let jwks: Jwks;
  try {
    jwks = JSON.parse(text) as Jwks;
  } catch {
    fail(`${source} is not JSON`);
  }
  if (!Array.isArray(jwks?.keys)) fail(`${source} is not a JWKS (no "keys" array)`);
  return jwks;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    fail(`${file} is not a readable JSON file`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let file: string | undefined;
  let jwksSource: string | undefined;
  let server = 'http://127.0.0.1:3000';
  let headFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--jwks') jwksSource = args[++i] ?? fail('--jwks needs a file or URL');
    else if (arg === '--server') server = args[++i] ?? fail('--server needs a URL');
    else if (arg === '--head') headFile = args[++i] ?? fail('--head needs a file');
    else if (arg.startsWith('--')) fail(`unknown option ${arg}`);
    else if (file === undefined) file = arg;
    else fail('give one FILE');
  }
  if (file === undefined) fail('give the FILE holding the receipt');
  const content = readJson(file);
  const heldHead = headFile === undefined ? undefined : readJson(headFile);
  const jwks = await loadJwks(jwksSource ?? new URL('/.well-known/jwks.json', server).href);

  const log = (content as { rolls?: unknown } | null)?.rolls;
  if (Array.isArray(log) && log.every((entry) => (entry as { seq?: unknown } | null)?.seq !== undefined)) {
    // A head held from another read (--head) is the stronger promise; else the log's own.
    const head = heldHead ?? (content as { head?: unknown }).head;
    const result = await verifyChain(log, jwks, head);
    if (result.valid) {
      const against =
        head === undefined
          ? ''
          : `, as long as its signed head promises (${(head as { entries: number }).entries})`;
      process.stdout.write(
        `valid: a chain of ${result.entries} signed entries, none missing or altered${against}\n`,
      );
      return;
    }
    process.stdout.write(
      `invalid: ${result.seq === undefined ? '' : `entry ${result.seq}: `}${result.reason}\n`,
    );
    process.exit(1);
  }
  const carried = (content as { receipt?: unknown } | null)?.receipt;
  const receipt = carried ?? content;
  const result = await verifyReceipt(receipt, jwks);
  if (result.valid) {
    const { id, time } = receipt as { id: string; time: string };
    process.stdout.write(`valid: receipt ${id}, signed ${time} by key ${result.kid}\n`);
    return;
  }
  process.stdout.write(`invalid: ${result.reason}\n`);
  process.exit(1);
}

await main();

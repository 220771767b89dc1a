// The table and receipt tools as a game would use them, through any connected MCP client (the
// SDK's own, over /mcp or over stdio): a created table, two rolls at it, its log read back as a
// valid hash chain, a receipt that verifies through the tool and an altered one that does not,
// and refusals as isError results carrying the REST envelope.

import { verifyChain } from '@fairdice/client/verify';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { Jwks, Receipt, TableHead } from '../../src/trust/receipt.js';
import { readRollText } from './roll-text.js';

/** Every tool, in the order of the operation table. */
export const ALL_TOOLS = [
  'roll',
  'table_roll',
  'roll_batch',
  'table_create',
  'table_log',
  'table_report',
  'verify_receipt',
  'stats',
];

export const textOf = (result: CallToolResult): string => {
  const [first] = result.content;
  if (first?.type !== 'text') throw new Error('expected one text content item');
  return first.text;
};

/** The envelope on the last line of an error result's text. */
export const envelopeOf = (result: CallToolResult) =>
  JSON.parse(textOf(result).split('\n').at(-1) ?? '') as { error: { code: string; message: string } };

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

interface Rolled {
  total: number;
  receipt: Receipt;
}

/** Runs the whole table story; `jwks` are the keys the server signs with. */
export async function playAtTable(client: Client, jwks: Jwks): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
  const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
  expect(hints.table_create).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  expect(hints.table_roll).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  expect(hints.table_log).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  expect(hints.verify_receipt).toMatchObject({ readOnlyHint: true, idempotentHint: true });

  const created = await call(client, 'table_create', {});
  expect(created.isError).toBeFalsy();
  const table = created.structuredContent as { id: string; maxEntries: number; links: { rolls: string } };
  expect(table.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
  expect(table.links.rolls).toBe(`/v1/tables/${table.id}/rolls`);
  expect(textOf(created)).toContain(`Table ${table.id} created`);

  // Two rolls at the table: each signed, numbered, and named in its line.
  const rolled: Rolled[] = [];
  for (const formula of ['1d20+5', '2d6']) {
    const result = await call(client, 'table_roll', { formula, table: table.id });
    expect(result.isError, textOf(result)).toBeFalsy();
    const roll = result.structuredContent as unknown as Rolled;
    expect(roll.receipt.table).toBe(table.id);
    expect(roll.receipt.seq).toBe(rolled.length + 1);
    // The roll's text form (docs/client.md), adding up to its total, then its receipt.
    const line = textOf(result);
    const receiptMention = ` [table entry #${roll.receipt.seq}, receipt ${roll.receipt.id}]`;
    expect(line.endsWith(receiptMention), line).toBe(true);
    expect(line.startsWith(formula.split('+')[0]!)).toBe(true);
    expect(readRollText(line.slice(0, -receiptMention.length)).rounded).toBe(roll.total);
    rolled.push(roll);
  }

  // The log read back: both entries, in order, one unbroken chain under the server's keys.
  const logged = await call(client, 'table_log', { table: table.id });
  expect(logged.isError).toBeFalsy();
  const log = logged.structuredContent as { entries: number; rolls: Receipt[]; head: TableHead };
  expect(log.entries).toBe(2);
  expect(log.rolls).toEqual(rolled.map((roll) => roll.receipt));
  expect(await verifyChain(log.rolls, jwks, log.head)).toEqual({ valid: true, entries: 2 });
  expect(log.head).toMatchObject({ table: table.id, entries: 2 });
  const lines = textOf(logged).split('\n');
  expect(lines[0]).toBe(`Table ${table.id}: 2 rolls in all; #1 to #2:`);
  expect(lines[1]).toMatch(
    new RegExp(`^#1 \\S+ 1d20 \\[\\d+( crit| fumble)?\\] \\+ 5 = ${rolled[0]!.total}$`),
  );
  const after = await call(client, 'table_log', { table: table.id, after: 2 });
  expect(textOf(after).split('\n')[0]).toBe(`Table ${table.id}: 2 rolls in all; none after #2.`);
  expect(textOf(after)).toMatch(/\nSigned head: 2 entries, last hash [0-9a-f]{12}…, at /);

  // The log with its last entry cut fails against its head, through the tool, saying how much is missing.
  const cut = await call(client, 'verify_receipt', { rolls: log.rolls.slice(0, 1), head: log.head });
  expect(cut.structuredContent).toEqual({
    valid: false,
    reason: 'entry 2: the head promises 2 entries but the log has 1: entries were cut from its end',
  });
  expect(textOf(cut)).toMatch(/^NOT valid: .*Do not trust this log\.$/);
  const whole = await call(client, 'verify_receipt', { rolls: log.rolls, head: log.head });
  expect(whole.structuredContent).toEqual({ valid: true, kid: jwks.keys[0]!.kid, entries: 2 });

  // A receipt verifies through the tool; the same one with a die changed does not.
  const genuine = await call(client, 'verify_receipt', { receipt: rolled[1]!.receipt });
  expect(genuine.isError).toBeFalsy();
  expect(genuine.structuredContent).toEqual({ valid: true, kid: jwks.keys[0]!.kid });
  expect(textOf(genuine)).toMatch(/^Valid and unaltered: 2d6 \[\d \d\] = \d+ \[table entry #2, /);
  const altered = structuredClone(rolled[1]!.receipt);
  altered.roll.total += 1;
  const forged = await call(client, 'verify_receipt', { receipt: altered });
  expect(forged.isError).toBeFalsy();
  expect(forged.structuredContent).toEqual({ valid: false, reason: 'signature does not match the receipt' });
  expect(textOf(forged)).toBe('NOT valid: signature does not match the receipt. Do not trust this roll.');

  // A roll with a receipt outside any table verifies too, and names its receipt in the line.
  const signed = await call(client, 'roll', { formula: '1d8', receipt: true });
  const receipt = (signed.structuredContent as unknown as Rolled).receipt;
  expect(receipt.table).toBeUndefined();
  expect(textOf(signed)).toMatch(new RegExp(`\\[receipt ${receipt.id}\\]$`));
  expect((await call(client, 'verify_receipt', { receipt })).structuredContent).toMatchObject({
    valid: true,
  });

  // Refusals are isError results with the REST envelope, never exceptions.
  const unknownTable = await call(client, 'table_roll', { formula: '1d6', table: 'x'.repeat(24) });
  expect(unknownTable.isError).toBe(true);
  expect(unknownTable.structuredContent).toBeUndefined();
  expect(envelopeOf(unknownTable).error.code).toBe('not_found');
  const noTable = await call(client, 'table_roll', { formula: '1d6' });
  expect(envelopeOf(noTable).error).toEqual({ code: 'invalid_request', message: 'table is required.' });
  // The roll tool leaves tables to table_roll; table_roll leaves receipt (always signed) out.
  const rollAtTable = await call(client, 'roll', { formula: '1d6', table: table.id });
  expect(envelopeOf(rollAtTable).error.code).toBe('invalid_request');
  const unknownLog = await call(client, 'table_log', { table: 'y'.repeat(24) });
  expect(envelopeOf(unknownLog).error.code).toBe('not_found');
  // One name for a table in every tool: the REST path's `id` is no argument of table_log.
  const oldName = await call(client, 'table_log', { id: table.id });
  expect(envelopeOf(oldName).error).toEqual({
    code: 'invalid_request',
    message: 'Unknown field: id. The table_log tool calls it table.',
  });
  const notReceipt = await call(client, 'verify_receipt', { receipt: 'a receipt' });
  expect(envelopeOf(notReceipt).error.code).toBe('invalid_request');

  // Nothing refused reached the log.
  const final = (await call(client, 'table_log', { table: table.id })).structuredContent as {
    entries: number;
  };
  expect(final.entries).toBe(2);
}

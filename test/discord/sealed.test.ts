// A GM's sealed roll on Discord (docs/discord.md#sealed-rolls), through the real HTTP server with
// each request signed as Discord signs it: `/roll sealed:true` answers the roller alone with the
// result and a Reveal button, posts the sealed entry's notice to the channel as a follow-up (to a
// stand-in of Discord's API on a loopback port), and Reveal or `/table reveal` shows the roll to
// the channel, once.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain } from '@fairdice/client/verify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jwks } from '../../src/trust/receipt.js';
import { listen, makeApp } from '../support/app.js';
import { APPLICATION_ID, buttonPress, discordApp, messageOf, slashCommand } from '../support/discord.js';
import { freePort } from '../support/http.js';
import { until } from '../support/wait.js';

interface Posted {
  url: string;
  body: { content: string; flags?: number };
}

describe('sealed rolls on Discord', () => {
  const discord = discordApp();
  const posted: Posted[] = [];
  let api: Server;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    // Discord's API as the follow-ups meet it: every POST kept, answered 200.
    const port = await freePort();
    api = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      request.on('end', () => {
        posted.push({ url: request.url ?? '', body: JSON.parse(text) as Posted['body'] });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => api.listen(port, '127.0.0.1', resolve));
    app = await makeApp({
      discordPublicKey: discord.publicKeyHex,
      discordApplicationId: APPLICATION_ID,
      publicUrl: 'https://dice.example.com',
      discordApiUrl: `http://127.0.0.1:${port}/api`,
      dataDir: mkdtempSync(join(tmpdir(), 'fairdice-discord-sealed-')),
    });
    base = await listen(app);
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => api?.close(resolve));
  });

  const said = async (interaction: Record<string, unknown>) => {
    const body = JSON.stringify(interaction);
    const response = await fetch(`${base}/discord/interactions`, {
      method: 'POST',
      headers: discord.headers(body),
      body,
    });
    expect(response.status).toBe(200);
    return messageOf(await response.json());
  };

  it('answers plainly that a sealed roll needs a table, outside one', async () => {
    const answer = await said(
      slashCommand('roll', { formula: '1d20', sealed: true }, { channel: '3300000000000000901' }),
    );
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toContain('A sealed roll is made at a table');
    expect(answer.content).toContain('/table start');
  });

  it('shows the roller alone the result, the channel the sealed entry, and reveals it once', async () => {
    const channel = '3300000000000000902';
    const gm = { channel, user: '2200000000000000902' };
    await said(slashCommand('table', {}, gm, 'start'));
    const interaction = {
      ...slashCommand('roll', { formula: '1d20+5', sealed: true, note: 'ambush' }, gm),
      token: 'itoken-902',
    };
    const answer = await said(interaction);
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toContain('Sealed roll, table entry #1: only you see this result');
    expect(answer.content).toMatch(/1d20.*= \d+/);
    const revealId = answer.customIds.find((id) => id.startsWith('reveal:'));
    expect(revealId).toMatch(/^reveal:1:[A-Za-z0-9_-]+$/);
    const token = revealId!.split(':')[2]!;
    expect(answer.content).toContain(`/table reveal seq:1 token:${token}`);

    // The channel's notice: a follow-up posted with the interaction's token, not ephemeral,
    // naming the entry and its commitment, never the result or the token.
    await until(() => posted.some((post) => post.url.includes('itoken-902')), 'the follow-up');
    const notice = posted.find((post) => post.url.includes('itoken-902'))!;
    expect(notice.url).toBe(`/api/webhooks/${APPLICATION_ID}/itoken-902`);
    expect(notice.body.flags ?? 0).toBe(0);
    expect(notice.body.content).toMatch(
      /made a sealed roll of `1d20\+5`: table entry #1, commitment `[0-9a-f]{12}…`/,
    );
    expect(notice.body.content).not.toContain(token);

    // The log shows it sealed; a wrong token is refused; Reveal shows it to the channel.
    const log = await said(slashCommand('table', {}, gm, 'log'));
    expect(log.content).toMatch(/#1 .*`1d20\+5` 🔒 sealed \(commitment `[0-9a-f]{12}…`\)/);
    expect(log.content).not.toContain('ambush');
    const wrong = await said(slashCommand('table', { seq: 1, token: 'not-it' }, gm, 'reveal'));
    expect(wrong.ephemeral).toBe(true);
    expect(wrong.content).toContain('not the reveal token');
    const revealed = await said(buttonPress(revealId!, gm));
    expect(revealed.ephemeral).toBe(false);
    expect(revealed.content).toContain('Revealed:');
    expect(revealed.content).toContain('sealed roll, table entry #1 (the reveal is entry #2)');
    expect(revealed.content).toContain('Note: ambush');
    const again = await said(slashCommand('table', { seq: 1, token }, gm, 'reveal'));
    expect(again.ephemeral).toBe(true);
    expect(again.content).toContain('revealed already, in entry 2');

    const rolls = (
      (await (await fetch(`${base}/v1/tables/${await tableOf(channel)}/rolls`)).json()) as {
        rolls: unknown[];
      }
    ).rolls;
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as Jwks;
    expect(await verifyChain(rolls, jwks)).toEqual({ valid: true, entries: 2, sealed: 1, revealed: 1 });
  });

  /** The table a channel rolls at, as the store maps it. */
  const tableOf = async (channel: string): Promise<string> => {
    const trust = (
      app as unknown as { trust: { store: { channelTable(c: string, n: number): Promise<string> } } }
    ).trust;
    return trust.store.channelTable(`discord:${channel}`, Date.now());
  };
});

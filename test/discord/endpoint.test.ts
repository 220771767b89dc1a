// POST /discord/interactions as Discord calls it: through the real HTTP server on a loopback port,
// each request signed with the application's key exactly as Discord signs it. Every answer is
// checked against the shapes of discord-api-types and Discord's limits on a message.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { AppSeams } from '../../src/http/app.js';
import { DISCORD_BUDGETS, withinDeadline } from '../../src/http/discord.js';
import { REDIS_KEY_PREFIX } from '../../src/http/rate-limit-store.js';
import { LIMITS } from '../../src/limits.js';
import { listen, makeApp } from '../support/app.js';
import {
  APPLICATION_ID,
  autocomplete,
  buttonPress,
  type DiscordApp,
  discordApp,
  expectResponse,
  messageOf,
  ping,
  slashCommand,
} from '../support/discord.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { scripted } from '../support/sources.js';

const PUBLIC_URL = 'https://dice.example.com';

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  json(): unknown;
}

/** A server with the Discord application configured, and a way to post to it as Discord does. */
async function serve(discord: DiscordApp, overrides: Partial<Config> = {}, seams: AppSeams = {}) {
  const app = await makeApp(
    {
      discordPublicKey: discord.publicKeyHex,
      discordApplicationId: APPLICATION_ID,
      publicUrl: PUBLIC_URL,
      dataDir: mkdtempSync(join(tmpdir(), 'fairdice-discord-')),
      ...overrides,
    },
    seams,
  );
  const base = await listen(app);
  const send = async (body: string, headers: Record<string, string>): Promise<Answer> => {
    const response = await fetch(`${base}/discord/interactions`, { method: 'POST', headers, body });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      text,
      json: () => JSON.parse(text),
    };
  };
  /** Posts `interaction` signed now (or at `timestamp`). */
  const post = (interaction: Record<string, unknown>, timestamp?: number) => {
    const body = JSON.stringify(interaction);
    return send(body, discord.headers(body, timestamp));
  };
  /** Posts and returns the message answered (status 200 checked). */
  const said = async (interaction: Record<string, unknown>) => {
    const answer = await post(interaction);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    return messageOf(answer.json());
  };
  return { app, base, send, post, said };
}

type Served = Awaited<ReturnType<typeof serve>>;

/** The signature with its last hex digit changed. */
const flipLast = (hex: string): string => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;

/** The rows of the chart in a message's code block. */
const chartOf = (content: string): string[] =>
  (content.split('```')[1] ?? '').split('\n').filter((row) => row !== '');

const receiptIdOf = (content: string): string => {
  const match = /\(<https:\/\/dice\.example\.com\/v1\/rolls\/([0-9a-f-]{36})>\)/.exec(content);
  if (match === null) throw new Error(`no receipt link in: ${content}`);
  return match[1]!;
};

describe('POST /discord/interactions without a Discord application', () => {
  it('is absent: 404 in the envelope', async () => {
    const app = await makeApp();
    const body = JSON.stringify(ping());
    const answer = await app.inject({
      method: 'POST',
      url: '/discord/interactions',
      headers: discordApp().headers(body),
      payload: body,
    });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ error: { code: 'not_found' } });
    await app.close();
  });
});

describe('a roll message shows the whole roll, from its description', () => {
  const discord = discordApp();
  // The faces of the rolls below, in the order they are made.
  const faces = [10, 4, 9, 8, 7, 3, 1, 2, 6, 8, 3, 5, 5, 2, 6, 1, 5, 7, 15];
  const source = scripted(faces);
  let served: Served;
  beforeAll(async () => {
    served = await serve(discord, {}, { random: source });
  });
  afterAll(() => served?.app.close());

  /** Rolls `formula` through the endpoint; the message, and the signed receipt its link names. */
  const rolled = async (formula: string) => {
    const answer = await served.said(slashCommand('roll', { formula }));
    expect(answer.embeds).toHaveLength(1);
    const stored = await served.app.inject({
      method: 'GET',
      url: `/v1/rolls/${receiptIdOf(answer.content)}`,
    });
    expect(stored.statusCode).toBe(200);
    const receipt = stored.json() as {
      id: string;
      roll: { total: number; dice: Array<{ results: number[]; keptFlags: boolean[] }> };
    };
    const embed = answer.embeds[0]!;
    // The title links to the receipt, whose total the embed says.
    expect(embed.url).toBe(`${PUBLIC_URL}/v1/rolls/${receipt.id}`);
    expect(embed.title).toBe(formula);
    return { ...answer, embed, receipt };
  };

  it('a World of Darkness pool: every die, its successes and failures, the 10 exploding', async () => {
    const { content, embed, receipt } = await rolled('8d10>=8f1!>=10');
    expect(content).toContain('`8d10>=8f1!>=10 [10✓!+4 9✓ 8✓ 7 3 1✗ 2 6] = 3 successes - 1 failure = 2`');
    expect(content).toContain('Total **3 successes** − 1 failure = **2**');
    expect(embed.description).toBe('Total **3 successes** − 1 failure = **2**');
    expect(embed.fields).toEqual([
      {
        name: '8d10>=8f1!>=10',
        value: '**10✓!+4** **9✓** **8✓** **7** **3** **1✗** **2** **6** → 3 successes, 1 failure',
        inline: false,
      },
    ]);
    expect(receipt.roll.total).toBe(2);
  });

  it('a Savage Worlds trait roll: trait die and wild die, both acing, the better one kept', async () => {
    const { content, embed, receipt } = await rolled('{1d8!, 1d6!}kh1+1');
    expect(content).toContain('`{1d8! [8!+3], 1d6! [5] dropped}kh1 + 1 = 12`');
    expect(embed.description).toBe('Total **12**');
    expect(embed.fields).toEqual([
      { name: '1d8! in {…}kh1', value: '**8!+3** = 11', inline: true },
      { name: '1d6! in {…}kh1', value: '~~5~~ → dropped', inline: true },
    ]);
    expect(receipt.roll.total).toBe(12);
  });

  it('an expression: (1d8+4)*2 reads with its parentheses and operators', async () => {
    const { content, embed, receipt } = await rolled('(1d8+4)*2');
    expect(content).toContain('`(1d8 [5] + 4) * 2 = 18`');
    expect(embed.description).toBe('Total **18**');
    expect(embed.fields).toEqual([{ name: '1d8', value: '**5** = 5', inline: true }]);
    expect(receipt.roll.total).toBe(18);
  });

  it('4d6kh3: three dice kept in bold, the lowest struck through', async () => {
    const { content, embed, receipt } = await rolled('4d6kh3');
    expect(content).toContain('`4d6kh3 [2 6 (1) 5] = 13`');
    expect(embed.fields).toEqual([{ name: '4d6kh3', value: '**2** **6** ~~1~~ **5** = 13', inline: true }]);
    expect(receipt.roll.dice[0]).toMatchObject({
      results: [2, 6, 1, 5],
      keptFlags: [true, true, false, true],
    });
  });

  it('2d20adv: the higher d20 kept, the roll said to be with advantage', async () => {
    const { content, embed, receipt } = await rolled('2d20adv');
    expect(content).toContain('`2d20adv [(7) 15] = 15 with advantage`');
    expect(embed.description).toBe('Total **15** with advantage');
    expect(embed.fields).toEqual([{ name: '2d20adv', value: '~~7~~ **15** = 15', inline: true }]);
    expect(receipt.roll.total).toBe(15);
    expect(source.remaining).toBe(0);
  });
});

describe('POST /discord/interactions', () => {
  const discord = discordApp();
  let served: Served;
  let app: FastifyInstance;
  beforeAll(async () => {
    served = await serve(discord);
    app = served.app;
    // The stats worker thread started now, not inside the first /odds's 2.5 s answer deadline.
    expect((await app.inject('/v1/stats?formula=1d2')).statusCode).toBe(200);
  });
  afterAll(() => app?.close());

  describe('the signature check, before anything else', () => {
    it('answers a PING with a PONG', async () => {
      const answer = await served.post(ping());
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(expectResponse(answer.json())).toEqual({ type: 1 });
    });

    it('answers 401 to a missing, malformed or wrong signature, and to a key other than the application’s', async () => {
      const body = JSON.stringify(ping());
      const good = discord.headers(body);
      const cases: Array<Record<string, string>> = [
        { 'content-type': 'application/json' },
        { ...good, 'x-signature-ed25519': 'not hex' },
        { ...good, 'x-signature-ed25519': flipLast(good['x-signature-ed25519']!) },
        { ...good, 'x-signature-timestamp': String(Number(good['x-signature-timestamp']) - 1) },
        discordApp().headers(body),
      ];
      for (const headers of cases) {
        const answer = await served.send(body, headers);
        expect(answer.status).toBe(401);
        expect(answer.text).toBe('invalid request signature');
      }
      // The body as signed, not as parsed: the same JSON with another spacing is refused.
      const spaced = await served.send(JSON.stringify(ping(), null, 1), good);
      expect(spaced.status).toBe(401);
    });

    it('refuses a replayed request whose timestamp is old, or one from the future', async () => {
      const now = Math.floor(Date.now() / 1000);
      const replayed = await served.post(slashCommand('roll', { formula: '1d20' }), now - 10 * 60);
      expect(replayed.status).toBe(401);
      const ahead = await served.post(slashCommand('roll', { formula: '1d20' }), now + 5 * 60);
      expect(ahead.status).toBe(401);
      // Within the window, it is answered.
      const recent = await served.post(ping(), now - 60);
      expect(recent.status).toBe(200);
    });

    it('refuses a body over the limit with 413, signed or not', async () => {
      const big = JSON.stringify({ ...ping(), padding: 'x'.repeat(LIMITS.discordBodyBytes) });
      const answer = await served.send(big, discord.headers(big));
      expect(answer.status).toBe(413);
      expect(answer.json()).toEqual({
        error: {
          code: 'payload_too_large',
          message: `The request body is larger than ${LIMITS.discordBodyBytes} bytes.`,
        },
      });
      const unsigned = await served.send(big, { 'content-type': 'application/json' });
      expect(unsigned.status).toBe(401);
    });

    it('refuses an interaction for another application', async () => {
      const answer = await served.post({ ...ping(), application_id: '999999999999999999' });
      expect(answer.status).toBe(401);
    });

    it('answers 400 to a signed body that is no interaction, and to an unknown interaction type', async () => {
      const notJson = 'hello';
      const bad = await served.send(notJson, discord.headers(notJson));
      expect(bad.status).toBe(400);
      expect(bad.json()).toMatchObject({ error: { code: 'invalid_request' } });
      const unknown = await served.post({ ...ping(), type: 99 });
      expect(unknown.status).toBe(400);
      expect(unknown.json()).toEqual({
        error: { code: 'invalid_request', message: 'fairdice does not handle interactions of type 99.' },
      });
      // A form submitted (fairdice opens none) is a known type: an ephemeral answer.
      const modal = await served.said({
        ...slashCommand('roll', { formula: '1d20' }),
        type: 5,
        data: { custom_id: 'x', components: [] },
      });
      expect(modal).toMatchObject({ ephemeral: true, content: 'fairdice has no form to submit.' });
    });
  });

  describe('/roll', () => {
    it('rolls through the roll operation, signed, with a receipt link that verifies, and the buttons', async () => {
      const answer = await served.said(slashCommand('roll', { formula: '1d20+5' }));
      expect(answer.ephemeral).toBe(false);
      expect(answer.content).toContain('`1d20 [20 crit] + 5 = 25`');
      expect(answer.content).toContain('Total **25**');
      expect(answer.customIds).toEqual(['roll:-:1d20+5', 'odds:1d20+5']);
      const receiptId = receiptIdOf(answer.content);
      const stored = await app.inject({ method: 'GET', url: `/v1/rolls/${receiptId}` });
      expect(stored.statusCode).toBe(200);
      // Who rolled is signed into the receipt: the name the server shows.
      expect(stored.json()).toMatchObject({
        request: { formula: '1d20+5', by: 'Player' },
        roll: { total: 25 },
      });
      const verified = await app.inject({
        method: 'POST',
        url: '/v1/receipts/verify',
        payload: { receipt: stored.json() },
      });
      expect(verified.json()).toMatchObject({ valid: true });
    });

    it('answers a private roll ephemerally, with its note shown as text that notifies nobody', async () => {
      const answer = await served.said(
        slashCommand('roll', { formula: '2d6', private: true, note: '**sneak** @everyone <@1>' }),
      );
      expect(answer.ephemeral).toBe(true);
      expect(answer.content).toContain('Note: \\*\\*sneak\\*\\* \\@everyone \\<\\@1\\>');
      expect(answer.content).toContain('Only you see this answer.');
      expect(answer.customIds).toEqual(['roll:p:2d6', 'odds:2d6']);
      // The note is signed into the receipt as typed.
      const stored = await app.inject({ method: 'GET', url: `/v1/rolls/${receiptIdOf(answer.content)}` });
      expect(stored.json().request).toMatchObject({ by: 'Player', note: '**sneak** @everyone <@1>' });
    });

    it('signs the nickname a server shows as who rolled, else the display name, else the username', async () => {
      const nicked = slashCommand('roll', { formula: '1d4' }, { user: '2200000000000000611' });
      (nicked.member as Record<string, unknown>).nick = 'Mira the Bold';
      const inDm = slashCommand('roll', { formula: '1d4' }, { user: '2200000000000000612', guild: false });
      (inDm.user as Record<string, unknown>).global_name = null;
      const byOf = async (interaction: Record<string, unknown>) => {
        const answer = await served.said(interaction);
        const stored = await app.inject({ method: 'GET', url: `/v1/rolls/${receiptIdOf(answer.content)}` });
        return (stored.json() as { request: { by?: string } }).request.by;
      };
      expect(await byOf(nicked)).toBe('Mira the Bold');
      expect(await byOf(inDm)).toBe('player');
    });

    it('rolls once per interaction: Discord sending the same one again gets the same roll', async () => {
      const channel = { channel: '3300000000000000620', user: '2200000000000000620' };
      await served.said(slashCommand('table', {}, channel, 'start'));
      const interaction = slashCommand('roll', { formula: '1d20', note: 'once' }, channel);
      const first = await served.said(interaction);
      const again = await served.said(interaction);
      expect(receiptIdOf(again.content)).toBe(receiptIdOf(first.content));
      expect(again.content).toBe(first.content);
      // The table's log holds the one roll.
      const log = await served.said(slashCommand('table', {}, channel, 'log'));
      expect(log.content).toMatch(/^This channel's table: 1 roll; the last 1:\n#1 /);
      // Another interaction with the same formula is another roll.
      const other = await served.said(slashCommand('roll', { formula: '1d20', note: 'once' }, channel));
      expect(other.content).toContain('Table entry #2');
    });

    it("answers a formula error with the service's message, ephemerally", async () => {
      const answer = await served.said(slashCommand('roll', { formula: '1d20+' }));
      expect(answer.ephemeral).toBe(true);
      const rest = await app.inject({ method: 'GET', url: '/v1/roll?formula=1d20%2B' });
      expect(answer.content).toBe(rest.json().error.message);
      expect(answer.content).toMatch(/^formula, column 6: /);
      const tooMany = await served.said(slashCommand('roll', { formula: '5000d6' }));
      expect(tooMany).toMatchObject({ ephemeral: true });
      const tooManyRest = await app.inject({ method: 'GET', url: '/v1/roll?formula=5000d6' });
      expect(tooMany.content).toBe(tooManyRest.json().error.message);
    });

    it('"Roll again" makes a new roll with a new receipt, said to be another, by whoever pressed it', async () => {
      const first = await served.said(slashCommand('roll', { formula: '1d6' }));
      const again = await served.said(buttonPress(first.customIds[0]!, { user: '2200000000000000042' }));
      expect(again.ephemeral).toBe(false);
      expect(again.content).toMatch(/^Another roll, by <@2200000000000000042>:\n`1d6 \[6\] = 6`/);
      expect(receiptIdOf(again.content)).not.toBe(receiptIdOf(first.content));
      expect(again.customIds).toEqual(first.customIds);
      const privately = await served.said(buttonPress('roll:p:1d6'));
      expect(privately.ephemeral).toBe(true);
    });

    it('leaves off a button whose custom id cannot hold the formula', async () => {
      const long = Array.from({ length: 30 }, () => '1d4').join('+');
      const answer = await served.said(slashCommand('roll', { formula: long }));
      expect(answer.content).toContain('Total **120**');
      expect(answer.customIds).toEqual([]);
    });

    it('answers an unknown button and an unknown command plainly', async () => {
      expect(await served.said(buttonPress('something-else'))).toMatchObject({
        ephemeral: true,
        content: 'This button does nothing any more.',
      });
      const unknown = await served.said(slashCommand('dance'));
      expect(unknown.ephemeral).toBe(true);
      expect(unknown.content).toMatch(/fairdice discord register/);
    });
  });

  describe('/odds', () => {
    it('gives the exact odds in one line and a chart, and the chance of reaching a target', async () => {
      const answer = await served.said(slashCommand('odds', { formula: '3d6', target: 15 }));
      expect(answer.ephemeral).toBe(false);
      expect(answer.content).toContain('3d6 → mean 10.5, sd 2.96, 3 to 18');
      // The exact chances, from the stats operation's targets: 20 of 216 rolls, and 196 of 216.
      expect(answer.content).toContain('; at least 15: 9.26%, at most 15: 95.37%`');
      const chart = chartOf(answer.content);
      expect(chart).toHaveLength(16);
      expect(chart[0]).toMatch(/^ 3 [▏▎▍▌▋▊▉] +0\.46%$/);
      expect(chart[7]).toBe(`10 ${'█'.repeat(20)} 12.50%`);
      expect(chart[15]).toMatch(/^18 [▏▎▍▌▋▊▉] +0\.46%$/);
    });

    it('charts a formula of many totals in ranges, with the tails said', async () => {
      const answer = await served.said(slashCommand('odds', { formula: '10d10' }));
      const chart = chartOf(answer.content);
      expect(chart.length).toBeLessThanOrEqual(20);
      expect(chart[0]).toMatch(/^ *< \d+ /);
      expect(chart.at(-1)).toMatch(/^ *> \d+ /);
    });

    it('answers too_complex plainly, and the "Odds" button ephemerally', async () => {
      const tooComplex = await served.said(slashCommand('odds', { formula: '1000d20' }));
      expect(tooComplex.ephemeral).toBe(true);
      expect(tooComplex.content).toMatch(
        /^The exact odds of `1000d20` cost too much to compute: .*units of work/,
      );
      const button = await served.said(buttonPress('odds:2d6'));
      expect(button.ephemeral).toBe(true);
      expect(button.content).toContain('2d6 → mean 7, sd 2.42, 2 to 12');
    });

    it('compares with a second formula exactly: higher, tie, lower', async () => {
      const answer = await served.said(slashCommand('odds', { formula: '2d6', versus: '1d12', target: 7 }));
      // P(2d6 > 1d12) = E[2d6 - 1]/12 = 1/2; a tie is 1/12, whatever 2d6 shows.
      expect(answer.content.split('\n')[0]).toBe(
        '`2d6 beats 1d12: 50.00%, ties 8.33% (loses 41.67%); 2d6 → mean 7, sd 2.42, 2 to 12; percentiles 5% 3, 25% 5, 50% 7, 75% 9, 95% 11; at least 7: 58.33%, at most 7: 58.33%`',
      );
      expect(chartOf(answer.content)).toHaveLength(11);
      const refused = await served.said(slashCommand('odds', { formula: '2d6', versus: '1000d20' }));
      expect(refused.ephemeral).toBe(true);
      expect(refused.content).toMatch(
        /^The exact odds of `2d6` against `1000d20` cost too much to compute: /,
      );
    });
  });

  describe('autocomplete', () => {
    it('offers the formula being typed, with what is wrong with it, then examples', async () => {
      const partial = await served.post(autocomplete('roll', 'formula', '4d6+'));
      expect(partial.status).toBe(200);
      const response = expectResponse(partial.json()) as {
        type: number;
        data: { choices: Array<{ name: string; value: string }> };
      };
      expect(response.type).toBe(8);
      expect(response.data.choices[0]!.value).toBe('4d6+');
      expect(response.data.choices[0]!.name).toMatch(/^4d6\+ ⚠ formula, column 5: /);
      const started = expectResponse((await served.post(autocomplete('roll', 'formula', '4d'))).json()) as {
        data: { choices: Array<{ value: string }> };
      };
      expect(started.data.choices.map((choice) => choice.value)).toEqual(['4d', '4d6kh3', '4dF']);
      const empty = expectResponse((await served.post(autocomplete('odds', 'formula', ''))).json()) as {
        data: { choices: Array<{ value: string }> };
      };
      expect(empty.data.choices.map((choice) => choice.value).slice(0, 3)).toEqual([
        '1d20',
        '1d20+5',
        '2d20kh1',
      ]);
      const valid = expectResponse((await served.post(autocomplete('roll', 'formula', '2d6+1'))).json()) as {
        data: { choices: Array<{ name: string; value: string }> };
      };
      expect(valid.data.choices).toEqual([{ name: '2d6+1', value: '2d6+1' }]);
    });
  });

  describe('/table', () => {
    const channel = { channel: '3300000000000000777' };

    it('has none until started; then every /roll in the channel is signed at it, logged and verifiable', async () => {
      const none = await served.said(slashCommand('table', {}, channel, 'log'));
      expect(none).toMatchObject({
        ephemeral: true,
        content: 'This channel has no fairdice table: start one with /table start.',
      });

      const started = await served.said(slashCommand('table', {}, channel, 'start'));
      expect(started.ephemeral).toBe(false);
      const tableId = /\?table=([A-Za-z0-9_-]+)>/.exec(started.content)?.[1];
      expect(tableId).toBeDefined();
      expect(started.content).toContain(`<${PUBLIC_URL}/?table=${tableId}>`);

      const first = await served.said(
        slashCommand(
          'roll',
          { formula: '1d20', note: 'perception' },
          { ...channel, user: '2200000000000000777' },
        ),
      );
      expect(first.content).toContain('Table entry #1, signed: [receipt]');
      const second = await served.said(buttonPress('roll:-:2d6', channel));
      expect(second.content).toContain('Table entry #2, signed');
      // Another channel is not at this table.
      const elsewhere = await served.said(
        slashCommand('roll', { formula: '1d20' }, { channel: '3300000000000000778' }),
      );
      expect(elsewhere.content).toMatch(/\nSigned: \[receipt\]/);

      const log = await served.said(slashCommand('table', {}, channel, 'log'));
      expect(log.ephemeral).toBe(true);
      expect(log.content).toMatch(
        /^This channel's table: 2 rolls; the last 2:\n#1 <t:\d+:t> Player: `1d20 \[20 crit\] = 20` \(perception\)\n#2 <t:\d+:t> Player: `2d6 \[6 6\] = 12`\n/,
      );
      const rest = await app.inject({ method: 'GET', url: `/v1/tables/${tableId}/rolls` });
      expect(rest.json()).toMatchObject({ entries: 2 });
      const head = rest.json().head as { entries: number; lastHash: string };
      expect(head.entries).toBe(2);

      const verified = await served.said(slashCommand('table', {}, channel, 'verify'));
      expect(verified.ephemeral).toBe(false);
      expect(verified.content).toMatch(/^This channel's table checks out: all 2 rolls are signed/);
      // The head it checked the log against, as any read of the log signs it.
      expect(verified.content).toContain(
        `\nSigned head: 2 entries, the last hashing to \`${head.lastHash.slice(0, 16)}…\`, signed <t:`,
      );

      // How lucky the night was: a natural 20 (39/40 of its odds: the 98th percentile) and
      // double six on 2d6 (71/72: the 99th); z = (39/40 + 71/72 − 1) / √(399/4800 + Var 2d6) ≈ 2.36.
      const report = await served.said(slashCommand('table', {}, channel, 'report'));
      expect(report.ephemeral).toBe(false);
      const z = (39 / 40 + 71 / 72 - 1) / Math.sqrt((1 - 1 / 400) / 12 + (1 - 666 / 46_656) / 12);
      const reportAnswer = await app.inject({ url: `/v1/tables/${tableId}/report` });
      expect(reportAnswer.statusCode, reportAnswer.body).toBe(200);
      const asked = reportAnswer.json() as {
        test: { pValue: number; sentence: string };
      };
      expect(asked.test.sentence).toContain(`z = ${z.toFixed(2)}`);
      expect(report.content.split('\n')).toEqual([
        "How lucky this channel's table was: entries #1 to #2, 2 rolls, 2 rated.",
        'The table rolled at the **98th percentile** on average (50th is average luck).',
        '- Player: 98th percentile over 2 rolls',
        asked.test.sentence,
        'Rolls in the outer tenth of their odds:',
        '- #1 `1d20` = 20 by Player: 98th percentile',
        '- #2 `2d6` = 12 by Player: 99th percentile',
        `Every roll, in your browser: [table ${tableId}](<${PUBLIC_URL}/?table=${tableId}>)`,
      ]);
      expect(asked.test.sentence).toMatch(
        /^Unusual for fair dice: 2 rated rolls averaged the 98th percentile, above average; .* about once in 55 nights /,
      );
      const noTable = await served.said(
        slashCommand('table', {}, { channel: '3300000000000000776' }, 'report'),
      );
      expect(noTable).toMatchObject({
        ephemeral: true,
        content: 'This channel has no fairdice table: start one with /table start.',
      });
    });

    it('starts a new table over the old one, which stays readable', async () => {
      const here = { channel: '3300000000000000779' };
      const first = await served.said(slashCommand('table', {}, here, 'start'));
      const firstId = /\?table=([A-Za-z0-9_-]+)>/.exec(first.content)?.[1];
      const second = await served.said(slashCommand('table', {}, here, 'start'));
      expect(second.content).toContain(`The table before, \`${firstId}\`, can still be read`);
    });

    it('works in a DM too', async () => {
      const dm = { channel: '3300000000000000900', guild: false, user: '2200000000000000900' };
      await served.said(slashCommand('table', {}, dm, 'start'));
      const rolled = await served.said(slashCommand('roll', { formula: '1d4' }, dm));
      expect(rolled.content).toContain('Table entry #1');
    });
  });
});

describe('budgets per Discord user and per channel, not per address', () => {
  const discord = discordApp();
  let served: Served;
  beforeAll(async () => {
    served = await serve(discord, {
      rateLimitMax: 3,
      rateLimitWindowMs: 60_000,
      throwsBurst: 100,
      throwsPerSecond: 1,
    });
  });
  afterAll(() => served?.app.close());

  it('counts commands per user, says when to come back, and leaves the address uncounted', async () => {
    const alice = { user: '2200000000000000101' };
    const bob = { user: '2200000000000000102' };
    for (let i = 0; i < 3; i++) {
      expect((await served.said(slashCommand('roll', { formula: '1d6' }, alice))).content).toContain('Total');
    }
    const refused = await served.said(slashCommand('roll', { formula: '1d6' }, alice));
    expect(refused.ephemeral).toBe(true);
    expect(refused.content).toMatch(
      /^You are sending commands faster than this fairdice allows: try again in \d+ seconds?\.$/,
    );
    // Another user, from the same (Discord's) address, rolls on.
    expect((await served.said(slashCommand('roll', { formula: '1d6' }, bob))).content).toContain('Total');
    // The address itself was not counted: its limit of 3 is untouched by 5 verified interactions.
    const health = await served.app.inject({ method: 'GET', url: '/v1/health' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['x-ratelimit-remaining']).toBe('2');
  });

  it("counts each user's dice against the throws budget", async () => {
    const carol = { user: '2200000000000000103' };
    const dave = { user: '2200000000000000104' };
    // Let in while the bucket is not empty, as on the HTTP API: the second roll takes it below zero.
    expect((await served.said(slashCommand('roll', { formula: '100d6' }, carol))).content).toContain(
      'Total **600**',
    );
    expect((await served.said(slashCommand('roll', { formula: '100d6' }, carol))).content).toContain(
      'Total **600**',
    );
    const spent = await served.said(slashCommand('roll', { formula: '1d6' }, carol));
    expect(spent.ephemeral).toBe(true);
    expect(spent.content).toMatch(
      // About 100 s owed; the bucket refills meanwhile, a few seconds on a loaded machine.
      /^You have rolled too many dice lately: try again in (9[4-9]|100|101) seconds\.$/,
    );
    expect((await served.said(slashCommand('roll', { formula: '100d6' }, dave))).content).toContain(
      'Total **600**',
    );
  });

  it('counts table operations per channel, whoever asks', async () => {
    const channel = '3300000000000000555';
    const users = [
      '2200000000000000201',
      '2200000000000000202',
      '2200000000000000203',
      '2200000000000000204',
    ];
    await served.said(slashCommand('table', {}, { channel, user: users[0] }, 'start'));
    await served.said(slashCommand('roll', { formula: '1d6' }, { channel, user: users[1] }));
    await served.said(slashCommand('table', {}, { channel, user: users[2] }, 'log'));
    const refused = await served.said(slashCommand('table', {}, { channel, user: users[3] }, 'log'));
    expect(refused.content).toMatch(
      /^This channel's table is taking commands faster than this fairdice allows: try again in \d+ seconds?\.$/,
    );
  });

  it('counts requests that fail the signature check against their address', async () => {
    const body = JSON.stringify(ping());
    const forged = {
      'content-type': 'application/json',
      'x-signature-ed25519': '00'.repeat(64),
      'x-signature-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    const health = await served.app.inject({ method: 'GET', url: '/v1/health' });
    const left = Number(health.headers['x-ratelimit-remaining']);
    expect(left).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let i = 0; i <= left; i++) statuses.push((await served.send(body, forged)).status);
    expect(statuses).toEqual([...Array.from({ length: left }, () => 401), 429]);
    // Discord's own requests still go through.
    expect((await served.post(ping())).status).toBe(200);
  });
});

describeWithRedis('with REDIS_URL', (executable) => {
  const discord = discordApp();
  let redis: RedisServer;
  let served: Served;
  beforeAll(async () => {
    redis = await startRedis(executable);
    served = await serve(discord, { redisUrl: redis.url });
  });
  afterAll(async () => {
    await served?.app.close();
    await redis?.stop();
  });

  it("keeps a channel's table in Redis: started, rolled at, verified", async () => {
    const channel = { channel: '3300000000000000999' };
    const started = await served.said(slashCommand('table', {}, channel, 'start'));
    const tableId = /\?table=([A-Za-z0-9_-]+)>/.exec(started.content)?.[1];
    expect(tableId).toBeDefined();
    expect((await served.said(slashCommand('roll', { formula: '1d8' }, channel))).content).toContain(
      'Table entry #1',
    );
    expect((await served.said(slashCommand('roll', { formula: '1d8' }, channel))).content).toContain(
      'Table entry #2',
    );
    const verified = await served.said(slashCommand('table', {}, channel, 'verify'));
    expect(verified.content).toMatch(/^This channel's table checks out: all 2 rolls/);
  });
  it('counts commands per user in Redis, one budget across every instance', async () => {
    // A second instance on the same Redis, with a budget of 3 commands a minute per user.
    const limits = { redisUrl: redis.url, rateLimitMax: 3, rateLimitWindowMs: 60_000 };
    const first = await serve(discord, limits);
    const second = await serve(discord, limits);
    try {
      const erin = { user: '2200000000000000301' };
      const frank = { user: '2200000000000000302' };
      expect((await first.said(slashCommand('roll', { formula: '1d6' }, erin))).content).toContain('Total');
      expect((await second.said(slashCommand('roll', { formula: '1d6' }, erin))).content).toContain('Total');
      expect((await first.said(slashCommand('roll', { formula: '1d6' }, erin))).content).toContain('Total');
      // The fourth, on either instance, is over the one budget.
      const refused = await second.said(slashCommand('roll', { formula: '1d6' }, erin));
      expect(refused.ephemeral).toBe(true);
      expect(refused.content).toMatch(
        /^You are sending commands faster than this fairdice allows: try again in (5\d|60) seconds\.$/,
      );
      expect((await first.said(slashCommand('roll', { formula: '1d6' }, frank))).content).toContain('Total');
      // The count is Redis's, under the request limit's prefix and the budget's name.
      const probe = new Redis(redis.url);
      try {
        const key = `${REDIS_KEY_PREFIX}${DISCORD_BUDGETS.commands}discord-user:${erin.user}`;
        expect(await probe.get(key)).toBe('4');
        expect(await probe.pttl(key)).toBeGreaterThan(0);
      } finally {
        probe.disconnect();
      }
    } finally {
      await first.app.close();
      await second.app.close();
    }
  });

  it("counts a channel's table operations in Redis, whichever instance and user they reach", async () => {
    const limits = { redisUrl: redis.url, rateLimitMax: 3, rateLimitWindowMs: 60_000 };
    const first = await serve(discord, limits);
    const second = await serve(discord, limits);
    try {
      const channel = '3300000000000000777';
      const from = (n: number) => ({ channel, user: `220000000000000040${n}` });
      await first.said(slashCommand('table', {}, from(1), 'start'));
      expect((await second.said(slashCommand('roll', { formula: '1d6' }, from(2)))).content).toContain(
        'Table entry #1',
      );
      await first.said(slashCommand('table', {}, from(3), 'log'));
      const refused = await second.said(slashCommand('table', {}, from(4), 'verify'));
      expect(refused.content).toMatch(
        /^This channel's table is taking commands faster than this fairdice allows: try again in \d+ seconds?\.$/,
      );
    } finally {
      await first.app.close();
      await second.app.close();
    }
  });
});

describe('fair turns per Discord user', () => {
  it("takes each verified interaction's turn as its user's, and none for a request that fails the check", async () => {
    const discord = discordApp();
    const keys: string[] = [];
    const served = await serve(
      discord,
      {},
      {
        takeTurn: (key, proceed) => {
          keys.push(key);
          proceed();
        },
      },
    );
    try {
      await served.said(slashCommand('roll', { formula: '1d6' }, { user: '2200000000000000501' }));
      await served.said(
        slashCommand('roll', { formula: '1d6' }, { user: '2200000000000000502', guild: false }),
      );
      await served.said(buttonPress('roll:-:1d6', { user: '2200000000000000501' }));
      expect(keys).toEqual([
        'discord-user:2200000000000000501',
        'discord-user:2200000000000000502',
        'discord-user:2200000000000000501',
      ]);
      // A forged request is refused before any turn; another route's request takes its address's.
      const body = JSON.stringify(ping());
      const forged = await served.send(body, { ...discordApp().headers(body) });
      expect(forged.status).toBe(401);
      await served.app.inject({ method: 'GET', url: '/v1/health' });
      expect(keys.slice(3)).toEqual(['127.0.0.1']);
    } finally {
      await served.app.close();
    }
  });
});

describe('the answer deadline', () => {
  it('answers the late message when the work is not done in time, and the work when it is', async () => {
    const never = new Promise<string>(() => {});
    expect(await withinDeadline(never, 1, 'late')).toBe('late');
    expect(await withinDeadline(Promise.resolve('done'), 1_000, 'late')).toBe('done');
    expect(LIMITS.discordAnswerMs).toBeLessThan(3_000);
  });
});

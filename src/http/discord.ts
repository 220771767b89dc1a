// Discord's interactions endpoint, POST /discord/interactions (docs/discord.md): served when the
// application is configured (DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID), absent (404)
// otherwise. Discord sends every slash command, autocomplete and button press here as a signed
// HTTPS request and shows the answer; fairdice needs no gateway connection.
//
// Every request is checked first, cheaply, and nothing else is done with one that fails: its two
// signature headers must be present and well formed and its timestamp recent (before the body is
// read), then the Ed25519 signature over the timestamp and the raw body must verify against the
// application's public key. A request that fails is answered 401 and counts against its
// address's rate limit like any request. A request that passes does not: all of them come from
// Discord's few addresses, so their budgets are per Discord user instead (src/discord/interactions.ts),
// counted where the request limit counts (in Redis with REDIS_URL), and so are their fair turns.
// Each answer is written within the request, before LIMITS.discordAnswerMs is up.

import {
  type APIInteractionResponse,
  type APIInteractionResponseCallbackData,
  InteractionResponseType,
  MessageFlags,
} from 'discord-api-types/v10';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import {
  answerInteraction,
  type CommandBudget,
  type DiscordSetting,
  type Interaction,
  InteractionSchema,
  userKeyOf,
} from '../discord/interactions.js';
import { discordPublicKey, signatureValid, signedHeaders, timestampFresh } from '../discord/verify.js';
import { RequestError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { rateLimitedError, replyWithError } from './errors.js';
import { countingItself } from './rate-limit.js';
import { memoryRateStores, type RateStore, type RateStores } from './rate-limit-store.js';

export const DISCORD_PATH = '/discord/interactions';

export interface DiscordPluginOptions {
  config: Config;
}

/** The answer when a command ran out of time: Discord shows nothing it receives after 3 s. */
const LATE: APIInteractionResponse = {
  type: InteractionResponseType.ChannelMessageWithSource,
  data: {
    content:
      "fairdice took too long to answer (Discord waits 3 seconds): try again. A roll made at this channel's table meanwhile is in its log (/table log).",
    allowed_mentions: { parse: [] },
    flags: MessageFlags.Ephemeral,
  },
};

/** Tries of a follow-up message, and the wait between them (Discord may not have the answer yet). */
const FOLLOW_UP_TRIES = 3;
const FOLLOW_UP_RETRY_MS = 500;

/**
 * Posts a follow-up message of an interaction to Discord's webhook (docs/discord.md), trying
 * again a few times; a failure is logged, never thrown (the entry is in the table's log anyway).
 */
async function postFollowUp(
  url: string,
  message: APIInteractionResponseCallbackData,
  log: FastifyRequest['log'],
): Promise<void> {
  for (let attempt = 1; attempt <= FOLLOW_UP_TRIES; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(5_000),
      });
      if (response.ok) return;
      if (attempt === FOLLOW_UP_TRIES)
        log.warn({ status: response.status }, 'Discord refused a follow-up message');
    } catch (error) {
      if (attempt === FOLLOW_UP_TRIES)
        log.warn({ err: error }, 'a follow-up message could not reach Discord');
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_UP_RETRY_MS));
  }
}

/** `work`'s result, or `late` when `ms` pass first (the work goes on, its result unused). */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * RATE_LIMIT_MAX commands per RATE_LIMIT_WINDOW_MS window per key, counted in `store` (the
 * request limit's store: in Redis with REDIS_URL, shared by every instance; else in memory).
 */
const windowBudget = (store: RateStore, max: number): CommandBudget => ({
  async take(key) {
    const { current, ttlMs } = await store.hit(key);
    return current <= max ? 0 : Math.max(1, Math.ceil(ttlMs / 1000));
  },
});

/** The Redis (and request limit) names of the two budgets of commands. */
export const DISCORD_BUDGETS = { commands: 'discord-commands-', tableOps: 'discord-table-ops-' } as const;

export async function discordPlugin(app: FastifyInstance, options: DiscordPluginOptions): Promise<void> {
  const { config } = options;
  if (config.discordPublicKey === undefined || config.discordApplicationId === undefined) return;
  const publicKey = discordPublicKey(config.discordPublicKey);
  const applicationId = config.discordApplicationId;
  // The request limit's stores, through their public face: Redis's when it is configured.
  const stores: RateStores = app.rateLimit.shared ?? memoryRateStores;
  const windowMs = config.rateLimitWindowMs;
  const commandsPerUser = windowBudget(
    stores.storeOf(DISCORD_BUDGETS.commands, windowMs),
    config.rateLimitMax,
  );
  const tableOpsPerChannel = windowBudget(
    stores.storeOf(DISCORD_BUDGETS.tableOps, windowMs),
    config.rateLimitMax,
  );
  /** The interactions whose signature preValidation checked, for their handler. */
  const verified = new WeakMap<FastifyRequest, Interaction>();
  const bodyLimit = LIMITS.discordBodyBytes;
  const chargeAddress = (request: FastifyRequest) => app.rateLimit.charge(request);

  /** A request that is not Discord's: counted against its address, then 401 (or the 429). */
  const refuse = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const verdict = await chargeAddress(request);
    if (verdict.exceeded) {
      reply.header('retry-after', String(verdict.retryAfterSeconds));
      return replyWithError(request, reply, rateLimitedError(), bodyLimit);
    }
    return reply.code(401).type('text/plain; charset=utf-8').send('invalid request signature');
  };

  await countingItself(app, (scope) => {
    // The raw bytes, whatever the content type: the signature covers them exactly as sent.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((error, request, reply) => replyWithError(request, reply, error, bodyLimit));
    scope.route({
      method: 'POST',
      url: DISCORD_PATH,
      bodyLimit,
      // Counted per Discord user once verified (the interactions' budgets), per address before.
      config: { rateLimitInHandler: true },
      // Before the body is read: the headers must be there and the timestamp recent.
      onRequest: async (request, reply) => {
        const signed = signedHeaders(request.headers);
        if (signed === undefined || !timestampFresh(signed.timestamp, Date.now()))
          return refuse(request, reply);
      },
      // Once the body is read, before the preHandler phase where the request waits for its turn.
      preValidation: async (request, reply) => {
        const signed = signedHeaders(request.headers);
        const body = request.body;
        if (signed === undefined || !Buffer.isBuffer(body) || !signatureValid(publicKey, signed, body)) {
          return refuse(request, reply);
        }
        let interaction: Interaction;
        try {
          interaction = InteractionSchema.parse(JSON.parse(body.toString('utf8')));
        } catch {
          return replyWithError(
            request,
            reply,
            new RequestError('The body is not a Discord interaction.'),
            bodyLimit,
          );
        }
        // Signed with this application's key but meant for another: not ours to answer.
        if (interaction.application_id !== applicationId) return refuse(request, reply);
        verified.set(request, interaction);
        // All of Discord's requests come from its few addresses: each takes its turn as its
        // Discord user's (src/http/turns.ts), so one user's rolls never hold up everyone's.
        const user = userKeyOf(interaction);
        if (user !== undefined) request.turnKey = user;
      },
      handler: async (request, reply) => {
        const interaction = verified.get(request);
        if (interaction === undefined) return refuse(request, reply);
        const links = { base: config.publicUrl ?? `https://${request.host}` };
        const setting: DiscordSetting = {
          contextFor: (key) => ({ ...app.diceContext(request, undefined, key), address: key }),
          commandsPerUser,
          tableOpsPerChannel,
          links,
          logError: (error, message) => request.log.error({ err: error }, message),
          now: Date.now,
          followUp: (message) => followUps.push(message),
        };
        const followUps: APIInteractionResponseCallbackData[] = [];
        const answer = await withinDeadline(
          answerInteraction(interaction, setting),
          LIMITS.discordAnswerMs,
          LATE,
        );
        if (answer === undefined) {
          return replyWithError(
            request,
            reply,
            new RequestError(`fairdice does not handle interactions of type ${interaction.type}.`),
            bodyLimit,
          );
        }
        reply.type('application/json; charset=utf-8').send(JSON.stringify(answer));
        // Discord takes follow-ups once it has the answer: they go after it is sent.
        if (followUps.length > 0 && interaction.token !== undefined) {
          const url = `${config.discordApiUrl}/webhooks/${applicationId}/${interaction.token}`;
          reply.raw.once('finish', () => {
            for (const message of followUps) void postFollowUp(url, message, request.log);
          });
        }
        return reply;
      },
    });
  });
}

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
// Discord's few addresses, so their budgets are per Discord user instead (src/discord/interactions.ts).
// Each answer is written within the request, before LIMITS.discordAnswerMs is up.

import { type APIInteractionResponse, InteractionResponseType, MessageFlags } from 'discord-api-types/v10';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { RequestError } from '../errors.js';
import { rateLimitedError, replyWithError } from '../http/errors.js';
import { countingItself } from '../http/rate-limit.js';
import { ThrowBuckets } from '../http/throw-budget.js';
import { LIMITS } from '../limits.js';
import {
  answerInteraction,
  type DiscordSetting,
  type Interaction,
  InteractionSchema,
} from './interactions.js';
import { discordPublicKey, signatureValid, signedHeaders, timestampFresh } from './verify.js';

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

/** `work`'s result, or `late` when `ms` pass first (the work goes on, its result unused). */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** A bucket of RATE_LIMIT_MAX commands refilled over RATE_LIMIT_WINDOW_MS, per key. */
const commandBudget = (config: Config) =>
  new ThrowBuckets({
    burst: config.rateLimitMax,
    perSecond: (config.rateLimitMax * 1000) / config.rateLimitWindowMs,
    addresses: LIMITS.rateLimitAddresses,
  });

export async function discordPlugin(app: FastifyInstance, options: DiscordPluginOptions): Promise<void> {
  const { config } = options;
  if (config.discordPublicKey === undefined || config.discordApplicationId === undefined) return;
  const publicKey = discordPublicKey(config.discordPublicKey);
  const applicationId = config.discordApplicationId;
  const commandsPerUser = commandBudget(config);
  const tableOpsPerChannel = commandBudget(config);
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
      handler: async (request, reply) => {
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
        const links = { base: config.publicUrl ?? `https://${request.host}` };
        const setting: DiscordSetting = {
          contextFor: (key) => ({ ...app.diceContext(request, undefined, key), address: key }),
          commandsPerUser,
          tableOpsPerChannel,
          links,
          logError: (error, message) => request.log.error({ err: error }, message),
          now: Date.now,
        };
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
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer));
      },
    });
  });
}

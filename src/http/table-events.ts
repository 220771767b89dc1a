// GET /v1/tables/{id}/events: a table's new rolls as Server-Sent Events, for VTTs and bots.
// A hand-written fastify route (a stream is no request/response operation). Each event is one
// entry (`id:` its sequence number, `event: roll`, `data:` the receipt), followed by the signed
// head of the log up to it (`event: head`, no id; docs/trust.md#signed-heads); Last-Event-ID (or
// ?after=N) resumes after that entry. docs/trust.md, "Live rolls".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { asTrustError } from '../api/tables.js';
import { DiceError, MESSAGES } from '../errors.js';
import type { TableRecord } from '../store/store.js';
import type { Receipt } from '../trust/receipt.js';
import { TABLE_ID_PATTERN } from '../trust/service.js';
import { replyWithError } from './errors.js';

/** Where the stream is served; its entry in the OpenAPI document is written in src/http/openapi.ts. */
export const TABLE_EVENTS_PATH = '/v1/tables/{id}/events';

/** The 400 message of a resume point that is not a sequence number. */
export const BAD_RESUME_MESSAGE = 'Last-Event-ID (or after) must be a sequence number.';

/** A comment line this often keeps proxies and idle timers from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;
const PAGE = 100;

export interface TableEventsOptions {
  /** BODY_LIMIT_BYTES, for the error envelope's 413 message. */
  bodyLimitBytes: number;
}

function resumePoint(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  const query = (request.query as { after?: unknown } | undefined)?.after;
  const text = typeof header === 'string' && header !== '' ? header : typeof query === 'string' ? query : '0';
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

async function tableEvents(app: FastifyInstance, options: TableEventsOptions): Promise<void> {
  const { trust } = app;
  /** Answers an error in the service's envelope (before the stream has started). */
  const refuse = (request: FastifyRequest, reply: FastifyReply, error: unknown) =>
    replyWithError(request, reply, error, options.bodyLimitBytes);
  const open = new Set<() => void>();
  // Open streams would hold app.close() (and a graceful shutdown) until the clients leave.
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });

  app.get(TABLE_EVENTS_PATH.replace('{id}', ':id'), async (request, reply) => {
    const { id } = request.params as { id: string };
    const after = resumePoint(request);
    if (after === undefined)
      return refuse(request, reply, new DiceError('invalid_request', BAD_RESUME_MESSAGE));
    if (!TABLE_ID_PATTERN.test(id))
      return refuse(request, reply, new DiceError('not_found', MESSAGES.tableNotFound));
    let release: (() => void) | undefined;
    try {
      release = await trust.openStream(request.ip);
    } catch (error) {
      return refuse(request, reply, asTrustError(error, trust));
    }
    if (release === undefined) {
      app.metrics?.refused('streams');
      return refuse(
        request,
        reply,
        new DiceError('too_many_streams', MESSAGES.tooManyStreams(trust.limits.sseConnectionsPerAddress)),
      );
    }
    const giveBack = release;

    let last = after;
    let live = false;
    let ended = false;
    const early: Receipt[] = [];
    let queue: Promise<void> = Promise.resolve();
    let unsubscribe: (() => void) | undefined;
    let table: TableRecord | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    const raw = reply.raw;

    const end = () => {
      if (ended) return;
      ended = true;
      open.delete(end);
      clearInterval(heartbeat);
      unsubscribe?.();
      giveBack();
      if (!raw.writableEnded) raw.end();
    };

    /** The last entry written whose head is not sent yet. */
    let unheaded: Receipt | undefined;
    const write = (receipt: Receipt) => {
      if (ended || receipt.seq === undefined || receipt.seq <= last) return;
      raw.write(`id: ${receipt.seq}\nevent: roll\ndata: ${JSON.stringify(receipt)}\n\n`);
      last = receipt.seq;
      unheaded = receipt;
    };
    /** The signed head of the log up to the last entry written (one per catch-up, one per live entry). */
    const writeHead = (head = unheaded && trust.headAt(unheaded)) => {
      if (ended || head === undefined) return;
      raw.write(`event: head\ndata: ${JSON.stringify(head)}\n\n`);
      unheaded = undefined;
    };

    /** Everything after `last` from the store, page by page. */
    const catchUp = async () => {
      for (;;) {
        const page = await trust.store.rolls(id, last, PAGE, Date.now());
        if (page === undefined || page.length === 0 || ended) return;
        for (const receipt of page) write(receipt);
        if (page.length < PAGE) return;
      }
    };

    /** A live entry; one that skips numbers (a message lost while reconnecting) fetches the gap. */
    const deliver = (receipt: Receipt) => {
      queue = queue
        .then(async () => {
          if (receipt.seq !== undefined && receipt.seq > last + 1) await catchUp();
          write(receipt);
          writeHead();
        })
        .catch(() => end());
    };

    try {
      // Subscribe before reading the log, so no entry falls between the two.
      unsubscribe = await trust.store.subscribe(id, (receipt) =>
        live ? deliver(receipt) : early.push(receipt),
      );
      table = await trust.store.table(id, Date.now());
      if (table === undefined) throw new DiceError('not_found', MESSAGES.tableNotFound);
    } catch (error) {
      unsubscribe?.();
      giveBack();
      return refuse(request, reply, asTrustError(error, trust));
    }

    reply.hijack();
    open.add(end);
    // What the hooks already set for every answer (CORS, nosniff, the rate limit's headers): a
    // hijacked reply sends only what is written on the raw response.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) raw.setHeader(name, value);
    }
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx buffers responses by default, which would hold events back.
      'x-accel-buffering': 'no',
    });
    raw.write(': fairdice table events\nretry: 2000\n\n');
    raw.on('close', end);
    heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS).unref();

    queue = queue.then(async () => {
      await catchUp();
      live = true;
      for (const receipt of early.splice(0)) write(receipt);
      // Nothing new since the resume point: the head of the log as it was read at the start.
      writeHead(unheaded === undefined ? trust.head(table!) : undefined);
    });
    queue.catch(() => end());
  });
}

/** The event stream of every table, with the app's receipts and tables (`app.trust`). */
export const tableEventsPlugin = fp(tableEvents, {
  name: 'fairdice-table-events',
  fastify: '5.x',
  encapsulate: true,
  decorators: { fastify: ['trust'] },
});

// A Server-Sent Events client for tests: one real connection, every event parsed, and a bounded
// wait for the n-th one.
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';

export interface ServerSentEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface EventStream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly events: ServerSentEvent[];
  /**
   * Resolves once `count` events have arrived (only those of type `type` when given: `roll`
   * leaves out the heads between them); rejects after `timeoutMs`.
   */
  waitFor(count: number, timeoutMs?: number, type?: string): Promise<ServerSentEvent[]>;
  /** The whole body, for a stream refused with an error envelope. */
  body(): Promise<string>;
  close(): void;
}

export function openEvents(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = httpRequest(new URL(path, base), { agent: false, headers });
    req.on('error', reject);
    req.on('response', (res) => {
      const events: ServerSentEvent[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let raw = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
          const event: ServerSentEvent = { id: undefined, event: undefined, data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'event') event.event = value;
            else if (field === 'data') {
              event.data += (hasData ? '\n' : '') + value;
              hasData = true;
            }
          }
          if (hasData) events.push(event);
        }
        for (const wake of waiters) wake();
      });
      const done = new Promise<string>((resolveBody) =>
        res.on('end', () => {
          ended = true;
          for (const wake of waiters) wake();
          resolveBody(raw);
        }),
      );
      res.on('error', () => {});
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        body: () => done,
        close: () => req.destroy(),
        waitFor(count, timeoutMs = 10_000, type) {
          const counted = () =>
            type === undefined ? events : events.filter((event) => event.event === type);
          return new Promise((resolveWait, rejectWait) => {
            const check = () => {
              const seen = counted();
              if (seen.length >= count) {
                waiters.delete(check);
                clearTimeout(timer);
                resolveWait(seen.slice(0, count));
              } else if (ended) {
                waiters.delete(check);
                clearTimeout(timer);
                rejectWait(new Error(`stream ended after ${seen.length} of ${count} events`));
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rejectWait(new Error(`only ${counted().length} of ${count} events within ${timeoutMs} ms`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
      });
    });
    req.end();
  });
}

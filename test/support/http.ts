// Real-socket HTTP helpers: one request per fresh connection (so a cluster spreads them over its
// workers), and a roll held in flight by a half-sent body until the test lets it finish.

import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createConnection, createServer } from 'node:net';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Collects a response's status, headers and body into an Answer. */
function collect(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export interface SendOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Written one by one: chunked transfer encoding unless a content-length header is set. */
  chunks?: string[];
  /** The client's own address (any of 127.0.0.0/8 on loopback): another client, as a server sees it. */
  localAddress?: string;
}

/** One request on its own connection (no keep-alive agent). `base` is `http://host:port`. */
export function send(base: string, options: SendOptions): Promise<Answer> {
  const req = httpRequest(new URL(options.path, base), {
    method: options.method ?? 'GET',
    agent: false,
    headers: { connection: 'close', ...options.headers },
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
  const answer = collect(req);
  for (const chunk of options.chunks ?? []) req.write(chunk);
  req.end();
  return answer;
}

/** GET on its own connection. */
export const get = (port: number, path = '/v1/roll?formula=1d20'): Promise<Answer> =>
  send(`http://127.0.0.1:${port}`, { path });

/** A POST /v1/roll whose headers and half of its body are sent; `finish` sends the rest. */
export interface HeldRoll {
  /** Settles with the answer, or rejects if the connection dies first. */
  readonly answer: Promise<Answer>;
  finish(): void;
}

export function holdRoll(port: number, formula = '2d6', localAddress?: string): HeldRoll {
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    ...(localAddress === undefined ? {} : { localAddress }),
    method: 'POST',
    path: '/v1/roll',
    agent: false,
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', connection: 'close' },
  });
  const answer = collect(req);
  answer.catch(() => undefined);
  req.write('{"formula":');
  return {
    answer,
    finish: () => {
      req.end(`${JSON.stringify(formula)}}`);
    },
  };
}

/** Whether a new TCP connection to the port is accepted or refused. */
export function tryConnect(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', () => resolve('refused'));
  });
}

/** A loopback port that was free a moment ago (for a child process that must be told its port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

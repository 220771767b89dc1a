// Real-socket HTTP helpers: one request per fresh connection (so a cluster spreads them over its
// workers), and a roll held in flight by a half-sent body until the test lets it finish.

import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createConnection } from 'node:net';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** GET on its own connection (no keep-alive agent). */
export function get(port: number, path = '/v1/roll?formula=1d20'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: { connection: 'close' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A POST /v1/roll whose headers and half of its body are sent; `finish` sends the rest. */
export interface HeldRoll {
  /** Settles with the answer, or rejects if the connection dies first. */
  readonly answer: Promise<Answer>;
  finish(): void;
}

export function holdRoll(port: number, formula = '2d6'): HeldRoll {
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/roll',
    agent: false,
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', connection: 'close' },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
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

// The wrk driver (scripts/bench/wrk.ts): the Lua script it writes sends each scenario's request
// exactly, and its result line and CPU figure are read back right. The end-to-end part runs the
// real wrk against a small server on 127.0.0.1 for one second; it is skipped loudly without wrk
// (and never on CI).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { onPath } from '../../../scripts/bench/cores.js';
import type { ServerHandle } from '../../../scripts/bench/http.js';
import type { HttpScenario } from '../../../scripts/bench/workloads.js';
import { parseWrkOutput, runWrk, wrkScript } from '../../../scripts/bench/wrk.js';

const post: HttpScenario = {
  name: 'post',
  label: 'post',
  server: 'fairdice',
  method: 'POST',
  path: '/v1/roll',
  // A body that would end a level-0 Lua long string early.
  body: { formula: '1d20', note: 'a]]b]=]c' },
};

describe('wrkScript', () => {
  it('sets method, body and content type only when there is a body', () => {
    const get = wrkScript({ ...post, method: 'GET', body: undefined });
    expect(get).toContain('wrk.method = "GET"');
    expect(get).not.toContain('wrk.body');
    const script = wrkScript(post);
    expect(script).toContain('wrk.method = "POST"');
    expect(script).toContain('wrk.headers["Content-Type"] = "application/json"');
    expect(script).toContain(`wrk.body = [==[${JSON.stringify(post.body)}]==]`);
    expect(script).toContain('done = function(summary, latency, requests)');
  });
});

describe('parseWrkOutput', () => {
  it("reads the done hook's line and the children's CPU from bash's times", () => {
    const output = [
      'Running 1s test @ http://127.0.0.1:1/v1/roll',
      'WRK_RESULT {"requests":1200,"durationMicros":1000000,"bytes":99,"connect":0,"read":1,"write":0,"status":2,"timeout":0,"p50Micros":150,"p99Micros":900,"maxMicros":2000}',
      '0m0.010s 0m0.002s',
      '0m0.300s 0m1.200s',
    ].join('\n');
    const { result, cpuMicros } = parseWrkOutput(output);
    expect(result.requests).toBe(1200);
    expect(result.p99Micros).toBe(900);
    expect(result.status).toBe(2);
    expect(cpuMicros).toBeCloseTo(1_500_000, 0);
    expect(() => parseWrkOutput('no result')).toThrow(/no result line/);
  });
});

const hasWrk = onPath('wrk');
if (!hasWrk && process.env.CI !== 'true') {
  console.warn(
    '\n*** wrk is not installed: SKIPPING the real wrk run of test/scripts/bench/wrk.test.ts ***\n',
  );
}

describe.skipIf(!hasWrk && process.env.CI !== 'true')('runWrk against a real server', () => {
  it('sends the scenario as written and counts what the server answered', { timeout: 30_000 }, async () => {
    let answered = 0;
    let wrong = 0;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const right =
          request.method === 'POST' &&
          request.url === post.path &&
          request.headers['content-type'] === 'application/json' &&
          body === JSON.stringify(post.body);
        if (!right) wrong++;
        answered++;
        // Every tenth answer is a 429, so the status count has something to count.
        response.writeHead(answered % 10 === 0 ? 429 : 200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const handle: ServerHandle = {
      kind: 'fairdice',
      port: (server.address() as AddressInfo).port,
      cpuMicros: async () => process.cpuUsage().user,
      stop: async () => {},
    };
    try {
      const round = await runWrk(handle, post, { seconds: 1, connections: 2, pinning: undefined });
      expect(wrong).toBe(0);
      expect(round.requests).toBeGreaterThan(10);
      // wrk stops at its deadline with requests in flight: it counts no more than were answered.
      expect(round.requests).toBeLessThanOrEqual(answered);
      expect(round.non2xx).toBeGreaterThanOrEqual(Math.floor(round.requests / 10) - 2);
      expect(round.non2xx).toBeLessThanOrEqual(Math.floor(answered / 10));
      expect(round.p99Ms).toBeGreaterThanOrEqual(round.p50Ms);
      expect(round.loadCpuMicrosPerRequest).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });
});

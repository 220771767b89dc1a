// The deployment of deploy/, run as shipped: real Redis, two fairdice instances configured by
// deploy/systemd/fairdice.env with TRUST_PROXY, nginx with deploy/nginx/fairdice.conf in front,
// and Prometheus with deploy/prometheus/prometheus.yml, all on loopback free ports (only the
// ports and the temporary paths are changed). Through the proxy: the rate limit is shared by both
// instances and counted per client address (clients told apart by the source address nginx
// forwards), a table roll made on one instance reaches an event stream held through nginx on the
// other, shutting one instance down mid-traffic loses no request and turns its readiness 503
// first, and Prometheus's API returns the rolls made. Skips loudly without nginx, redis-server or
// prometheus (with its promtool), except under CI=true, where it fails.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { REDIS_KEY_PREFIX } from '../src/http/rate-limit-store.js';
import { hasExited, trackChild } from './support/children.js';
import { openEvents } from './support/events.js';
import { describeWithExecutables } from './support/executables.js';
import { type Answer, freePort, holdRoll, send, tryConnect } from './support/http.js';
import { sample } from './support/metrics.js';
import { type RedisServer, startRedis } from './support/redis.js';
import { killServer, type ServerProcess, startServer } from './support/server-process.js';
import { until } from './support/wait.js';

// Five processes and two Node services starting on a shared 2-core machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const deployFile = (path: string) => fileURLToPath(new URL(`../deploy/${path}`, import.meta.url));

/** KEY=VALUE lines of an environment file, comments and blank lines left out. */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match !== null) env[match[1]!] = match[2]!;
  }
  return env;
}

/** A program of the deployment as a child process, its output kept for a failure's message. */
function run(executable: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || hasExited(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

const RATE_LIMIT_MAX = 10;

describeWithExecutables(
  'the deployment in deploy/',
  ['nginx', 'redis-server', 'prometheus', 'promtool'],
  'apt-get install nginx redis-server prometheus',
  (paths) => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-deploy-'));
    let redis: RedisServer | undefined;
    let client: Redis | undefined;
    const instances: { server: ServerProcess; port: number; metricsPort: number }[] = [];
    let nginx: ReturnType<typeof run> | undefined;
    let prometheus: ReturnType<typeof run> | undefined;
    let proxy = '';
    let prometheusBase = '';
    let rollsMade = 0;

    const metricsOf = async (index: number) =>
      (await send(`http://127.0.0.1:${instances[index]!.metricsPort}`, { path: '/metrics' })).body;
    const through = (
      path: string,
      localAddress: string,
      options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
    ) =>
      send(proxy, {
        path,
        localAddress,
        method: options.method ?? 'GET',
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        chunks: options.body === undefined ? [] : [JSON.stringify(options.body)],
      });

    beforeAll(async () => {
      redis = await startRedis(paths['redis-server']);
      client = new Redis(redis.url);
      // One signing key for both instances, as SIGNING_KEY_FILE names in the shipped environment.
      const keyFile = join(dir, 'signing.pem');
      const { privateKey } = generateKeyPairSync('ed25519');
      writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      const shared = readEnvFile(deployFile('systemd/fairdice.env'));
      expect(shared.TRUST_PROXY).toBe('127.0.0.1');
      for (const index of [1, 2]) {
        const own = readEnvFile(deployFile(`systemd/instance-${index}.env`));
        expect(Object.keys(own).sort()).toEqual(['METRICS_PORT', 'PORT']);
        const [port, metricsPort] = [await freePort(), await freePort()];
        const server = startServer({
          ...shared,
          REDIS_URL: redis.url,
          SIGNING_KEY_FILE: keyFile,
          DATA_DIR: join(dir, `data-${index}`),
          PORT: String(port),
          METRICS_PORT: String(metricsPort),
          RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
          RATE_LIMIT_WINDOW_MS: '600000',
        });
        instances.push({ server, port, metricsPort });
      }
      for (const [index, { server, metricsPort }] of instances.entries()) {
        await server.waitForLine(
          (line) => line.msg?.startsWith('Server listening') === true,
          `instance ${index + 1}`,
        );
        await until(
          async () => (await send(`http://127.0.0.1:${metricsPort}`, { path: '/ready' })).status === 200,
          `instance ${index + 1} ready`,
        );
      }

      // nginx with the shipped server block: only its listen address and the instances' ports change.
      const nginxPort = await freePort();
      const site = readFileSync(deployFile('nginx/fairdice.conf'), 'utf8')
        .replace('listen 80;', `listen 127.0.0.1:${nginxPort};`)
        .replace('127.0.0.1:3001', `127.0.0.1:${instances[0]!.port}`)
        .replace('127.0.0.1:3002', `127.0.0.1:${instances[1]!.port}`);
      expect(site).toContain(`127.0.0.1:${instances[1]!.port}`);
      writeFileSync(join(dir, 'fairdice.conf'), site);
      // nginx's workers run as nobody when the test runs as root (CI): they write its temporary files.
      chmodSync(dir, 0o755);
      const temp = ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => {
        const path = join(dir, `nginx-${name}`);
        mkdirSync(path, { mode: 0o777 });
        chmodSync(path, 0o777);
        return `${name === 'body' ? 'client_body' : name}_temp_path ${path};`;
      });
      writeFileSync(
        join(dir, 'nginx.conf'),
        [
          'daemon off;',
          'worker_processes 1;',
          `pid ${join(dir, 'nginx.pid')};`,
          `error_log ${join(dir, 'nginx-error.log')} warn;`,
          'events { worker_connections 512; }',
          'http {',
          '  access_log off;',
          ...temp.map((line) => `  ${line}`),
          `  include ${join(dir, 'fairdice.conf')};`,
          '}',
          '',
        ].join('\n'),
      );
      nginx = run(paths.nginx!, [
        '-p',
        dir,
        '-c',
        join(dir, 'nginx.conf'),
        '-e',
        join(dir, 'nginx-error.log'),
      ]);
      await until(async () => {
        if (hasExited(nginx!.child)) throw new Error(`nginx exited: ${nginx!.output()}`);
        return (await tryConnect(nginxPort)) === 'accepted';
      }, 'nginx to listen');
      proxy = `http://127.0.0.1:${nginxPort}`;

      // Prometheus with the shipped scrape configuration, scraping every second instead of 15.
      const prometheusPort = await freePort();
      const scrape = readFileSync(deployFile('prometheus/prometheus.yml'), 'utf8')
        .replace(/scrape_interval: 15s/, 'scrape_interval: 1s')
        .replace('127.0.0.1:9464', `127.0.0.1:${instances[0]!.metricsPort}`)
        .replace('127.0.0.1:9465', `127.0.0.1:${instances[1]!.metricsPort}`);
      writeFileSync(join(dir, 'prometheus.yml'), scrape);
      prometheus = run(paths.prometheus!, [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${prometheusPort}`,
      ]);
      prometheusBase = `http://127.0.0.1:${prometheusPort}`;
      await until(
        async () => {
          if (hasExited(prometheus!.child)) throw new Error(`prometheus exited: ${prometheus!.output()}`);
          return (
            (await send(prometheusBase, { path: '/-/ready' }).catch(() => ({ status: 0 }))).status === 200
          );
        },
        'prometheus to be ready',
        { attempts: 600 },
      );
    });

    afterAll(async () => {
      for (const { server } of instances) await killServer(server);
      await stop(nginx?.child);
      await stop(prometheus?.child);
      client?.disconnect();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('ships a Prometheus configuration promtool accepts', () => {
      const check = spawnSync(paths.promtool!, ['check', 'config', deployFile('prometheus/prometheus.yml')], {
        encoding: 'utf8',
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    });

    it('delivers a table roll made on one instance to an event stream held through nginx on the other', async () => {
      const created = await through('/v1/tables', '127.0.0.1', { method: 'POST', body: {} });
      expect(created.status, created.body).toBe(200);
      const table = (JSON.parse(created.body) as { id: string }).id;
      const stream = await openEvents(proxy, `/v1/tables/${table}/events`);
      try {
        expect(stream.status).toBe(200);
        // Which instance holds the stream: the one whose metrics count it.
        let holder = -1;
        await until(async () => {
          const open = [await metricsOf(0), await metricsOf(1)].map((text) =>
            sample(text, 'fairdice_event_streams'),
          );
          holder = open.indexOf(1);
          return holder !== -1;
        }, 'an instance to hold the stream');
        const other = instances[1 - holder]!;
        const rolled = await send(`http://127.0.0.1:${other.port}`, {
          method: 'POST',
          path: '/v1/roll',
          headers: { 'content-type': 'application/json' },
          chunks: [JSON.stringify({ formula: '1d20', table })],
        });
        expect(rolled.status, rolled.body).toBe(200);
        rollsMade++;
        // Within a bound far under the 15 s heartbeat: a buffering proxy would hold the event back
        // until its buffer filled or the stream ended.
        const [event] = await stream.waitFor(1, 5_000, 'roll');
        expect(event!.event).toBe('roll');
        expect(JSON.parse(event!.data)).toMatchObject({ table, seq: 1 });
      } finally {
        stream.close();
      }
    });

    it('shares the rate limit between both instances and counts it per client address', async () => {
      const answers: Answer[] = [];
      for (let i = 0; i < RATE_LIMIT_MAX + 2; i++)
        answers.push(await through('/v1/roll?formula=1d6', '127.0.0.2'));
      expect(answers.map((answer) => answer.status)).toEqual([
        ...Array<number>(RATE_LIMIT_MAX).fill(200),
        429,
        429,
      ]);
      // One count across both instances: what remains falls by one with each request, wherever it went.
      expect(
        answers.slice(0, RATE_LIMIT_MAX).map((answer) => Number(answer.headers['x-ratelimit-remaining'])),
      ).toEqual(Array.from({ length: RATE_LIMIT_MAX }, (_, i) => RATE_LIMIT_MAX - 1 - i));
      rollsMade += RATE_LIMIT_MAX;
      // And both instances served some of them.
      for (const index of [0, 1]) {
        const served = sample(await metricsOf(index), 'fairdice_http_request_duration_seconds_count', {
          route: '/v1/roll',
          method: 'GET',
          status: '200',
        });
        expect(served, `instance ${index + 1}`).toBeGreaterThan(0);
      }
      // Another client address has its own count, whatever the first claims in X-Forwarded-For.
      const other = await through('/v1/roll?formula=1d6', '127.0.0.3');
      expect(other.status).toBe(200);
      expect(other.headers['x-ratelimit-remaining']).toBe(String(RATE_LIMIT_MAX - 1));
      rollsMade++;
      const forged = await through('/v1/roll?formula=1d6', '127.0.0.2', {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(forged.status).toBe(429);
      const refused = [await metricsOf(0), await metricsOf(1)].map(
        (text) => sample(text, 'fairdice_refusals_total', { kind: 'rate' }) ?? 0,
      );
      expect(refused[0]! + refused[1]!).toBe(3);
    });

    it('answers a Prometheus query with the rolls made, scraped from both instances', async () => {
      const query = async (expression: string) => {
        const answer = await send(prometheusBase, {
          path: `/api/v1/query?query=${encodeURIComponent(expression)}`,
        });
        expect(answer.status, answer.body).toBe(200);
        return (
          JSON.parse(answer.body) as {
            data: { result: { metric: Record<string, string>; value: [number, string] }[] };
          }
        ).data.result;
      };
      let up: number[] = [];
      await until(
        async () => {
          up = (await query('up{job="fairdice"}')).map((result) => Number(result.value[1]));
          return up.length === 2 && up.every((value) => value === 1);
        },
        'both instances scraped',
        { attempts: 200, everyMs: 250 },
      );
      let total = Number.NaN;
      await until(
        async () => {
          const [result] = await query('sum(fairdice_rolls_total{job="fairdice"})');
          total = Number(result?.value[1]);
          return total === rollsMade;
        },
        `Prometheus to report ${rollsMade} rolls`,
        { attempts: 200, everyMs: 250 },
      );
      expect(total).toBe(rollsMade);
    });

    it('shuts one instance down mid-traffic without losing a request, not ready first', async () => {
      const [first] = instances;
      const operations = `http://127.0.0.1:${first!.metricsPort}`;
      // Clients that keep rolling through nginx until the instance is gone; each changes its source
      // address before its rate limit could refuse it (bounded: 200 addresses of 8 requests each).
      let stopped = false;
      const statuses: number[] = [];
      const traffic = Array.from({ length: 4 }, async (_, loop) => {
        for (let address = 1; address <= 200 && !stopped; address++) {
          for (let i = 0; i < RATE_LIMIT_MAX - 2 && !stopped; i++) {
            const answer = await through('/v1/roll?formula=1d6', `127.0.${loop + 10}.${address}`).catch(
              (error: Error) => ({ status: -1, body: error.message }) as Answer,
            );
            statuses.push(answer.status);
          }
        }
      });
      // A request the instance holds when the signal comes: its body is still arriving.
      const held = holdRoll(first!.port, '2d6', '127.0.0.9');
      await until(
        async () => Number(await client!.get(`${REDIS_KEY_PREFIX}127.0.0.9`)) === 1,
        'the held request',
      );
      await until(() => statuses.length >= 20, 'traffic through nginx');

      first!.server.child.kill('SIGTERM');
      let readiness: Answer | undefined;
      await until(async () => {
        readiness = await send(operations, { path: '/ready' });
        return readiness.status === 503;
      }, 'readiness to turn 503');
      expect(JSON.parse(readiness!.body)).toEqual({ ready: false, reasons: ['shutting down'] });
      // Not ready while the held request is still in flight; it is answered all the same.
      held.finish();
      expect((await held.answer).status).toBe(200);
      const exitCode = await first!.server.exited();
      // Its last log lines say why, should it not exit cleanly (a grace run out, a failed close).
      expect(exitCode, JSON.stringify(first!.server.lines.slice(-8))).toBe(0);
      const countAtExit = statuses.length;
      await until(() => statuses.length >= countAtExit + 20, 'traffic after the instance stopped');
      stopped = true;
      await Promise.all(traffic);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    });
  },
);

// The log is for whoever reads it: JSON lines when stdout is not a terminal (a pipe, a file, a
// collector), readable lines (pino-pretty) for a person at a terminal. The built server is run
// both ways: with a pipe for stdout, and under `script`, which gives it a pseudo-terminal.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceLogger } from '../src/http/request-log.js';
import { trackChild } from './support/children.js';
import { killServer, type ServerProcess, startServer } from './support/server-process.js';

const serverJs = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const scriptPresent = spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;

/** A stream that keeps what is written to it. */
function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

const isJson = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

describe('serviceLogger', () => {
  it('writes JSON lines by default', () => {
    const out = capture();
    serviceLogger('info', out.stream).info({ store: 'sqlite' }, 'table and receipt store opened');
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, store: 'sqlite', msg: 'table and receipt store opened' });
  });

  it('writes lines a person reads when asked to', () => {
    const out = capture();
    const log = serviceLogger('info', out.stream, true);
    log.info({ store: 'sqlite', file: 'data/fairdice.sqlite' }, 'table and receipt store opened');
    log.debug('below the level');
    const [first, ...rest] = out.text().trimEnd().split('\n');
    expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): table and receipt store opened$/);
    expect(rest.map((line) => line.trim())).toEqual(['store: "sqlite"', 'file: "data/fairdice.sqlite"']);
    expect(out.text()).not.toContain('below the level');
    expect(out.text()).not.toContain('\u001b['); // no colour codes off a terminal
  });
});

describe('the server process', () => {
  let server: ServerProcess | undefined;
  afterEach(() => killServer(server));

  it('logs JSON lines when stdout is a pipe', async () => {
    server = startServer({ PORT: '0', LOG_LEVEL: 'info' });
    const listening = await server.waitForLine(
      (line) => /Server listening at/.test(line.msg ?? ''),
      'Server listening at',
    );
    // The collector parses each line: a line that was not JSON would have level 0 here.
    expect(listening.level).toBe(30);
    expect(listening.pid).toBe(server.child.pid);
    expect(server.lines.every((line) => line.level > 0)).toBe(true);
  });

  it('logs readable lines when stdout is a terminal', async (context) => {
    if (!scriptPresent) {
      if (process.env.CI === 'true') throw new Error('`script` (util-linux) is needed under CI');
      console.warn('SKIPPED: no `script` command to give the server a terminal');
      context.skip();
    }
    // `script` runs the server with a pseudo-terminal as its stdout and copies what it prints.
    const child = spawn('script', ['-qefc', `${JSON.stringify(process.execPath)} ${serverJs}`, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        TERM: 'xterm-256color',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'fairdice-data-')),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    trackChild(child);
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const listening = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const line = output.split(/\r?\n/).find((text) => text.includes('Server listening at'));
          if (line !== undefined) resolve(line);
        });
        child.once('exit', () => reject(new Error(`the server exited before listening: ${output}`)));
      });
      const plain = stripVTControlCharacters(listening);
      expect(plain).toMatch(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): Server listening at http:\/\/127\.0\.0\.1:\d+$/,
      );
      expect(isJson(plain)).toBe(false);
      expect(output).toContain('\u001b['); // coloured, as pino-pretty colours a terminal
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }
  });
});

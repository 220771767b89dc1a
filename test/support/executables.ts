// Real programs the tests run (redis-server, nginx, prometheus): found on PATH or in the sbin
// directories a non-root PATH leaves out, and the rule for when a suite needing them may skip.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'vitest';

/** Where Debian puts programs a non-root PATH may lack (nginx is /usr/sbin/nginx). */
const SBIN = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** The executable `name`, or undefined when it is not installed. */
export function findExecutable(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...SBIN]) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * `describe` for a suite that needs real programs; `suite` gets their paths by name. When one is
 * absent the suite skips with a loud banner, except under CI=true, where it fails: CI must run
 * the real components (.ci/run installs them).
 */
export function describeWithExecutables(
  name: string,
  names: readonly string[],
  /** How to install them, for the banner: `apt-get install nginx redis-server prometheus`. */
  install: string,
  suite: (paths: Readonly<Record<string, string>>) => void,
): void {
  const paths: Record<string, string> = {};
  const missing: string[] = [];
  for (const program of names) {
    const path = findExecutable(program);
    if (path === undefined) missing.push(program);
    else paths[program] = path;
  }
  if (missing.length === 0) {
    describe(name, () => suite(paths));
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${missing.join(', ')}`, () => {
        throw new Error(`${missing.join(', ')} not installed but CI=true: .ci/run must install them`);
      });
    });
    return;
  }
  console.warn(
    [
      '',
      '!'.repeat(78),
      `!! SKIPPED "${name}": ${missing.join(', ')} not installed.`,
      `!! Install them (${install}) to run it; under CI=true it fails.`,
      '!'.repeat(78),
      '',
    ].join('\n'),
  );
  describe.skip(name, () => suite(paths));
}

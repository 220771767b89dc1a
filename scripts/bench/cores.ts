// Core pinning for the HTTP bench: the server under load on one core, the load generator on
// another, so neither steals the other's time slices (the machine has two).
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/** Whether a command is on PATH. */
export function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * One core for the server under load, another for the load generator, when `taskset` exists and
 * the machine has two cores or more; otherwise no pinning (and the report says so).
 */
export interface Pinning {
  readonly serverCore: number;
  readonly loadCore: number;
}

export function corePinning(): Pinning | undefined {
  if (cpus().length < 2 || !onPath('taskset')) return undefined;
  return { serverCore: 0, loadCore: 1 };
}

/**
 * Pins a running process, every thread of it, to one core: a server child once it is ready (it
 * starts on both cores, which keeps start-up quick), and this process while autocannon runs in it.
 */
export function pinProcess(pid: number, core: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

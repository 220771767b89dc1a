// Child processes the tests start: one exit hook reaps whatever a test left running, and one
// check says whether a child is gone (an exit code, or a signal when it was killed).

import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Registers a child so it is SIGKILLed if this test process exits while it still runs. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** True once the child has exited, whether by itself (exitCode) or by a signal (signalCode). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

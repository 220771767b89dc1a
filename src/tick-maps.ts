// Keeps node's tick objects on one set of hidden classes for the life of the process: imported
// first by src/server.ts and src/http/app.ts, before anything calls process.nextTick.
//
// process.nextTick builds each tick as an object literal with two symbol keys. V8 gives that
// literal's objects a chain of hidden classes (maps) that nothing holds strongly: a full garbage
// collection that runs while no tick is pending frees them, and the next tick builds a new chain.
// The literal's inline caches, which had seen the old chain, then go megamorphic for good, and
// every later tick (a served request makes about eight) is built by V8's runtime instead of
// optimised code. A server with a growing old generation (caches, limiter memory) meets such a
// collection within its first seconds; a bare route often never does. Holding one real tick
// object keeps its chain alive, so the caches stay monomorphic (docs/performance.md#tick-objects-keep-their-hidden-classes).
// Seen on Node 20 and 24.
import { createHook } from 'node:async_hooks';

let held: object | undefined;

/**
 * Holds one tick object: the first one made while an `init` hook listens for a moment. Returns
 * whether one is held. Only the first call does anything; later ones find the chain held.
 */
export function holdTickMaps(): boolean {
  if (held !== undefined) return true;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') held ??= resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
  return held !== undefined;
}

holdTickMaps();

// Types for @fastify/rate-limit's own stores, which it ships untyped. They are reused rather than
// copied so the shared count (Redis Lua script) and the fallback (LRU) behave exactly as built in.

declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit';

  interface LocalStore extends FastifyRateLimitStore {}
  const LocalStore: new (
    continueExceeding?: boolean,
    exponentialBackoff?: boolean,
    cache?: number,
  ) => LocalStore;
  export default LocalStore;
}

declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit';
  import type { Redis } from 'ioredis';

  interface RedisStore extends FastifyRateLimitStore {}
  const RedisStore: new (
    continueExceeding: boolean | undefined,
    exponentialBackoff: boolean | undefined,
    redis: Redis,
    key?: string,
  ) => RedisStore;
  export default RedisStore;
}

// @fairdice/client/schemas: the zod schemas of every answer the service gives, the one
// declaration of each wire shape. The service validates and documents its answers with them;
// the client's types are inferred from them. Import this entry only to validate at run time: it
// brings zod, which the client's main entry does not load (docs/client.md).
export * from './health.js';
export * from './receipt.js';
export * from './response.js';
export * from './roll.js';
export * from './stats.js';
export * from './tables.js';

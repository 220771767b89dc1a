// The layers of fairdice, checked by `npm run lint:deps` (dependency-cruiser). An arrow points
// from what is imported to what imports it:
//
//   base (errors, limits, version, config, shutdown, cluster, tick-maps, metrics)
//     <- formula (the language: text to a checked plan)
//     <- roll, stats (two peer back ends; stats may read roll/types.ts, which holds shape types)
//     <- store <- trust (trust builds and uses the stores; the stores never import trust)
//     <- api (the operations)
//     <- mcp, discord, http (the faces; http serves /mcp and mounts the Discord endpoint
//        (src/http/discord.ts), so it may import mcp and discord, never the reverse; discord
//        writes its messages with mcp's text lines, so it may import mcp, never the reverse)
//     <- server.ts, cli.ts, index.ts (entry points, imported by nothing in src/)
//
// page/ and packages/client never import server code (src/), and the client no node built-in;
// the page only the language (src/formula/index.ts) and, in its odds worker, the exact engine.
// No cycle anywhere. Type-only imports count: a shape type is a dependency like any other.

const base = '^src/(errors|limits|version|config|shutdown|cluster|tick-maps|metrics)\\.ts$';
const entries = '^src/(server|cli|index)\\.ts$';
const above = (...layers) => layers.map((layer) => `^src/${layer}/`);

/** A layer may import nothing from the layers above it. */
const below = (name, from, ...upper) => ({
  name,
  severity: 'error',
  comment: `${from} may not import ${upper.join(', ')}`,
  from: { path: from },
  to: { path: above(...upper) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle: each module of it depends on itself through the others',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'an import that resolves to no file (a misspelt path, or a missing dependency)',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'base-imports-no-layer',
      severity: 'error',
      comment: 'the base modules are imported by every layer, so they may import none',
      from: { path: base },
      to: { path: above('formula', 'roll', 'stats', 'store', 'trust', 'api', 'mcp', 'discord', 'http') },
    },
    below(
      'formula-is-the-bottom-layer',
      '^src/formula/',
      'roll',
      'stats',
      'store',
      'trust',
      'api',
      'mcp',
      'discord',
      'http',
    ),
    below('roll-below-the-rest', '^src/roll/', 'stats', 'store', 'trust', 'api', 'mcp', 'discord', 'http'),
    {
      name: 'stats-reads-only-roll-shape-types',
      severity: 'error',
      comment: 'the stats engine and the roller are peers: of the roller, stats may read only roll/types.ts',
      from: { path: '^src/stats/' },
      to: { path: '^src/roll/', pathNot: '^src/roll/types\\.ts$' },
    },
    below('stats-below-the-rest', '^src/stats/', 'store', 'trust', 'api', 'mcp', 'discord', 'http'),
    below('store-below-trust', '^src/store/', 'trust', 'api', 'mcp', 'discord', 'http'),
    below('trust-below-api', '^src/trust/', 'api', 'mcp', 'discord', 'http'),
    below('api-below-the-faces', '^src/api/', 'mcp', 'discord', 'http'),
    below('mcp-imports-no-other-face', '^src/mcp/', 'discord', 'http'),
    below('discord-does-not-import-http', '^src/discord/', 'http'),
    {
      name: 'nothing-imports-an-entry-point',
      severity: 'error',
      comment: 'server.ts, cli.ts and index.ts are where the layers end',
      from: { path: '^src/' },
      to: { path: entries },
    },
    {
      name: 'page-imports-only-the-language-and-the-engine',
      severity: 'error',
      comment:
        'the page imports of src/ only the language (src/formula/index.ts), the limits (src/limits.ts) and, in its odds worker, the exact engine src/stats/distribution.ts with src/errors.ts (docs/architecture.md)',
      from: { path: '^page/' },
      to: {
        path: '^src/',
        pathNot: '^src/(formula/index|stats/distribution|errors|limits)[.]ts$',
      },
    },
    {
      name: 'only-the-odds-worker-imports-the-engine',
      severity: 'error',
      comment:
        'the exact engine is bundled into the odds worker only (page/odds-worker.ts): the main script stays without it',
      from: { path: '^page/', pathNot: '^page/odds-worker[.]ts$' },
      to: { path: '^src/(stats/|errors[.]ts$)' },
    },
    {
      name: 'client-imports-no-language',
      severity: 'error',
      comment: 'the client package depends on nothing of the service, the language included',
      from: { path: '^packages/client/src/' },
      to: { path: '^src/' },
    },
    {
      name: 'language-is-browser-safe',
      severity: 'error',
      comment:
        'the page bundles the language and the exact engine (src/formula, src/stats, with src/errors.ts and src/limits.ts): no Node built-in in them',
      from: { path: '^src/(formula/|stats/|errors[.]ts$|limits[.]ts$)' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'client-imports-no-node-built-in',
      severity: 'error',
      comment: 'the client package runs in browsers as well as in Node',
      from: { path: '^packages/client/src/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};

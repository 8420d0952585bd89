/**
 * Who may import whom in simfleet. `npm run check:imports` runs this; test/contract/imports.test.ts
 * runs it in `npm test` and proves on a scratch tree that every rule can fail.
 *
 * The layers: openapi/ (the contract) is shared by server/ (gateway) and workers/ (host agent),
 * which never reach into each other. The CLI in server/cli/ is the composition root and may use
 * the worker's public entry, workers/index.ts, and nothing deeper.
 */
module.exports = {
  forbidden: [
    {
      name: 'contract-stands-alone',
      comment: 'openapi/ is the contract; it must not depend on either side.',
      severity: 'error',
      from: { path: '^openapi/' },
      to: { path: '^(server|workers)/' },
    },
    {
      name: 'gateway-not-into-workers',
      comment: 'server/ shares only the contract with workers/; only the CLI may start a worker, via workers/index.ts.',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/cli/' },
      to: { path: '^workers/' },
    },
    {
      name: 'cli-uses-worker-entry-only',
      comment: 'The composition root may use the worker only through its public entry.',
      severity: 'error',
      from: { path: '^server/cli/' },
      to: { path: '^workers/', pathNot: '^workers/index\\.ts$' },
    },
    {
      name: 'workers-not-into-gateway',
      comment: 'workers/ shares only the contract with server/.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^server/' },
    },
    {
      name: 'only-postgres-module-imports-pg',
      comment: 'One module talks to a Postgres server: server/db/postgres.ts (a type-only import resolves to @types/pg, so that counts too).',
      severity: 'error',
      from: { path: '^(server|workers|openapi)/', pathNot: '^server/db/postgres\\.ts$' },
      to: { path: 'node_modules/(@types/)?pg/' },
    },
    {
      name: 'only-embedded-module-imports-pglite',
      comment: 'One module runs the embedded Postgres: server/db/embedded.ts.',
      severity: 'error',
      from: { path: '^(server|workers|openapi)/', pathNot: '^server/db/embedded\\.ts$' },
      to: { path: 'node_modules/@electric-sql/pglite' },
    },
    {
      name: 'workers-hold-no-database',
      comment: 'Workers have no database credentials; memory reaches Postgres through the gateway.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '(^server/db/|node_modules/(pg|pg-pool|@electric-sql/pglite)/)' },
    },
    {
      name: 'domain-knows-no-http',
      comment: 'Domain logic knows nothing of HTTP, WebSockets or SQL drivers.',
      severity: 'error',
      from: { path: '^server/domain/' },
      to: { path: '(^server/http/|^server/hub/|node_modules/(fastify|@fastify|ws|pg|@electric-sql)/)' },
    },
    {
      name: 'engines-behind-the-database-interface',
      comment: 'Only server/db/open.ts chooses an engine; everything else sees server/db/database.ts.',
      severity: 'error',
      from: { path: '^(server|workers|openapi)/', pathNot: '^server/db/open\\.ts$' },
      to: { path: '^server/db/(postgres|embedded)\\.ts$' },
    },
    {
      name: 'backends-only-through-registry',
      comment: 'Only the registry knows which platform backends exist.',
      severity: 'error',
      from: { path: '^workers/', pathNot: '^workers/devices/(registry\\.ts|([^/]+)/)' },
      to: { path: '^workers/devices/[^/]+/' },
    },
    {
      name: 'only-web-backend-drives-chromium',
      comment: "playwright-core is the web backend's own business.",
      severity: 'error',
      from: { path: '^(server|workers|openapi)/', pathNot: '^workers/devices/web/' },
      to: { path: 'node_modules/playwright-core/' },
    },
    {
      name: 'only-image-module-touches-pixels',
      comment:
        "Frames become gray grids in one place (perception/image.ts); everything else reads the grids. The fake backend encodes the frames it draws: making an image is a device's job, reading one is perception's.",
      severity: 'error',
      from: { path: '^(server|workers|openapi)/', pathNot: '^workers/(perception/image|devices/fake/provider)\\.ts$' },
      to: { path: 'node_modules/sharp/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-test-code-in-product',
      severity: 'error',
      from: { path: '^(server|workers|openapi)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // node_modules must not be excluded: that drops the edges into npm packages, and with them every
    // rule about which module may import pg, pglite, playwright-core or sharp (doNotFollow suffices).
    exclude: { path: '^dist/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};

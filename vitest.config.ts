import { defineConfig } from 'vitest/config';

// Files that run on the embedded database whatever DATABASE_URL says (they start the service, the
// worker and the CLI on a DATA_DIR of their own, or test PGlite itself), or whose subject does not
// touch the database. The PostgreSQL pass would only run them again as they are.
const EMBEDDED_ONLY = [
  'test/operator-start.test.ts',
  'test/cli.test.ts',
  'test/migrations.test.ts',
  'test/backup.test.ts',
  'test/backup.snapshot.test.ts',
  // The service's Node heap under hostile input lists and under a WebSocket that stops reading:
  // what they measure is the same on either database, and the PostgreSQL pass would spend a
  // minute repeating them.
  'test/input-lists.memory.test.ts',
  'test/websocket.memory.test.ts',
];

export default defineConfig({
  // Vite would resolve `graphql` to its .mjs build while CommonJS dependencies (Pothos) load the
  // .js build: two copies of graphql in one process. Pin our imports to the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests need Chromium and run on their own: `npm run test:browser`; so do the fault
    // and several-instance tests, which start their own servers: `npm run test:reliability`.
    exclude: [
      '**/node_modules/**',
      'test/browser/**',
      'test/reliability/**',
      ...(process.env.DATABASE_URL ? EMBEDDED_ONLY : []),
    ],
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/build-setup.ts'],
    pool: 'forks',
    // Each worker loads the app's modules once for all its files instead of once per file (the
    // import of the schema, Prisma and yoga cost seconds of CPU per file): a third off the suite.
    // Files share nothing else: each opens its own database and app, with workspaces of its own.
    isolate: false,
    // Many files wait on real processes, receivers and timeouts rather than the CPU: on a 2-core
    // machine the default (cores - 1 = one file at a time) leaves it mostly idle.
    maxWorkers: 3,
    // So a heap check can collect first: what counts is what stays reachable, not garbage the
    // worker (shared by many files) has not collected yet (test/security/fuzz.test.ts).
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vite would resolve `graphql` to its .mjs build while CommonJS dependencies (Pothos) load the
  // .js build: two copies of graphql in one process. Pin our imports to the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests need Chromium and run on their own: `npm run test:browser`; so do the fault
    // and several-instance tests, which start their own servers: `npm run test:reliability`.
    exclude: ['**/node_modules/**', 'test/browser/**', 'test/reliability/**'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/build-setup.ts'],
    pool: 'forks',
    // Many files wait on real processes, receivers and timeouts rather than the CPU: on a 2-core
    // machine the default (cores - 1 = one file at a time) leaves it mostly idle.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vite would resolve `graphql` to its .mjs build while CommonJS dependencies (Pothos) load the
  // .js build: two copies of graphql in one process. Pin our imports to the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
  },
});

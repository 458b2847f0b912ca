import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: PostgreSQL restarted, workers and Redis killed, a receiver that
// hangs, several instances. Each file starts its own PostgreSQL and Redis processes
// (test/helpers/private-*.ts), so no global setup; kept out of `npm test` because the files
// start and kill many processes and need the PostgreSQL server binaries.
export default defineConfig({
  // The same graphql pin as vitest.config.ts (one copy of graphql in the process).
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/helpers/build-setup.ts'],
    include: ['test/reliability/**/*.test.ts'],
    pool: 'forks',
    // Mostly waiting on child processes, like the main suite.
    maxWorkers: 3,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
  },
});

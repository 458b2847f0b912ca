import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:browser`: the dashboard in headless Chromium (playwright-core driving the
// system's /usr/bin/chromium). Each file starts its own app and browser. Spread, not
// mergeConfig: that would concatenate the include and exclude lists.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/browser/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/browser/build-setup.ts', 'test/helpers/build-setup.ts'],
    // What a page shows after a round trip (a reload, a live event) is waited for, not timed.
    expect: { poll: { timeout: 10_000, interval: 100 } },
    // Two browsers at a time fill a 2-core machine.
    maxWorkers: 2,
  },
});

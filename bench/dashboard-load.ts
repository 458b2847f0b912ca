// How long the dashboard takes to load on loopback: the service as `npm start` runs it (built,
// embedded database in a temporary directory) and Chromium opening the sign-in page, which loads
// the same bundle as every page (script, styles and the shared chunk), each time with an empty
// cache. Prints each load and the median: the load event, first contentful paint, bytes received.
//   npx tsx bench/dashboard-load.ts [loads=10]     (Chromium at /usr/bin/chromium or CHROMIUM_PATH)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFlags, startServer } from './server-process.ts';

const loads = Number(process.argv[2] ?? 10);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-dashboard-load-'));
const server = await startServer('dist/server/main.js', { DATA_DIR: dataDir, NODE_ENV: 'production' }, startFlags());
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium' });
try {
  // The first answer of a fresh process (its caches, the compiled routes) is no part of a load.
  await fetch(`${server.base}/dashboard/sign-in`).then((r) => r.text());
  const figures = [];
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/dashboard/sign-in`, { waitUntil: 'load' });
    await page.getByLabel('Email').waitFor();
    figures.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        return {
          load: nav.loadEventEnd,
          paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
          kB: (nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0)) / 1024,
        };
      }),
    );
    await context.close();
  }
  for (const f of figures)
    console.log(`load ${f.load.toFixed(0)} ms, first paint ${f.paint.toFixed(0)} ms, ${f.kB.toFixed(0)} kB received`);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `median of ${loads} loads with an empty cache: load ${median(figures.map((f) => f.load)).toFixed(0)} ms, ` +
      `first paint ${median(figures.map((f) => f.paint)).toFixed(0)} ms, ` +
      `slowest load ${Math.max(...figures.map((f) => f.load)).toFixed(0)} ms`,
  );
} finally {
  await browser.close();
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

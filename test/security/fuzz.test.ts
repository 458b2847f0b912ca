// Property-based fuzzing of every REST route and every GraphQL field (fuzz.rest.ts,
// fuzz.graphql.ts), against one app; each surface works on a workspace of its own. After every
// batch the app must still be answering (/healthz and a real query on each surface), with its
// heap (this process's) under HEAP_MB.
import pino from 'pino';
import { afterEach, expect } from 'vitest';
import { withAppOptions } from '../helpers/fixtures.ts';
import { seedSpace, type FuzzSetup } from './fixtures.ts';
import { graphqlFuzzTests } from './fuzz.graphql.ts';
import { restFuzzTests } from './fuzz.rest.ts';

let setup: FuzzSetup;
const serverErrors: string[] = [];

const test = withAppOptions({
  logger: pino({ level: 'error' }, { write: (line: string) => void serverErrors.push(line.slice(0, 3000)) }),
});
test.beforeAll(async ({ app, listen }) => {
  const hook = await listen();
  const target = async (label: string) => {
    const workspace = await app.workspace({ plan: 'enterprise' });
    const user = await workspace.addUser(label);
    return {
      workspace,
      space: await seedSpace(label, workspace.id, workspace.id, workspace.key, workspace.api, user.id, hook.url),
    };
  };
  const [rest, graphql] = await Promise.all([target('Rest'), target('Graphql')]);
  setup = { app, serverErrors, rest, graphql };
});
/** Far above what the app and the test runner hold (about 200 MB), far below what a runaway answer would. */
const HEAP_MB = 1024;

/**
 * The heap in use, collected first when it looks over the limit: the worker runs many files, and
 * what they left for the collector is not what this file holds (vitest.config.ts exposes gc).
 */
function liveHeapMb(): number {
  const used = () => process.memoryUsage().heapUsed / 2 ** 20;
  if (used() < HEAP_MB) return used();
  (globalThis as { gc?: () => void }).gc?.();
  return used();
}

afterEach(async (ctx) => {
  if (!setup) return;
  const what = `after "${ctx.task.name}"`;
  expect((await fetch(`${setup.app.base}/healthz`)).status, what).toBe(200);
  const rest = await setup.rest.workspace.api('GET', '/v1/contacts?limit=1');
  expect(rest.status, `${what}: ${rest.text.slice(0, 300)}`).toBe(200);
  const graphql = await setup.graphql.workspace.api('POST', '/graphql', {
    query: '{ contacts(limit: 1) { total nodes { id } } }',
  });
  expect(graphql.body?.data?.contacts?.total, `${what}: ${graphql.text.slice(0, 300)}`).toBeGreaterThan(0);
  expect(liveHeapMb(), `${what}: heap used (MB)`).toBeLessThan(HEAP_MB);
});

restFuzzTests(() => setup);
graphqlFuzzTests(() => setup);

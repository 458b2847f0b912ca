// Property-based fuzzing of every REST route and every GraphQL field (fuzz.rest.ts,
// fuzz.graphql.ts), against one app; each surface works on a workspace of its own.
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { startTestApp } from '../helpers/app.ts';
import { receiver, type Receiver } from '../helpers/receiver.ts';
import { seedSpace, type FuzzSetup } from './fixtures.ts';
import { graphqlFuzzTests } from './fuzz.graphql.ts';
import { restFuzzTests } from './fuzz.rest.ts';

let setup: FuzzSetup;
let hook: Receiver;

beforeAll(async () => {
  const serverErrors: string[] = [];
  const app = await startTestApp({ logger: pino({ level: 'error' }, { write: (line: string) => void serverErrors.push(line.slice(0, 3000)) }) });
  hook = await receiver();
  const target = async (label: string) => {
    const workspace = await app.workspace({ plan: 'enterprise' });
    const user = await workspace.addUser(label);
    return { workspace, space: await seedSpace(label, workspace.id, workspace.id, workspace.key, workspace.api, user.id, hook.url) };
  };
  const [rest, graphql] = await Promise.all([target('Rest'), target('Graphql')]);
  setup = { app, serverErrors, rest, graphql };
});
afterAll(async () => {
  await setup?.app.close();
  await hook?.close();
});

restFuzzTests(() => setup);
graphqlFuzzTests(() => setup);

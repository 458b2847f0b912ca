// Tenant isolation, scopes, scopes through neighbours and mass assignment (tenant-isolation.ts,
// scopes.ts, neighbours.ts, mass-assignment.ts), against one app holding workspaces A (with its sandbox) and B.
import { test } from '../helpers/fixtures.ts';
import { seedWorld, type World } from './fixtures.ts';
import { massAssignmentTests } from './mass-assignment.ts';
import { neighbourTests } from './neighbours.ts';
import { scopeTests } from './scopes.ts';
import { tenantIsolationTests } from './tenant-isolation.ts';

let world: World;
test.beforeAll(async ({ app, listen }) => {
  world = await seedWorld(app, await listen());
});

tenantIsolationTests(() => world);
scopeTests(() => world);
neighbourTests(() => world);
// Last: it changes A's records (the others compare snapshots within each test, but read the seed).
massAssignmentTests(() => world);

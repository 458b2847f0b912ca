// Secrets at rest: after keys of every kind are made and used and webhooks are created, updated,
// replayed (Idempotency-Key) and delivered, no dump of the database holds an API key or a webhook
// secret in plain text, nor in base64 or hex. Dumps: every table's rows as text; the embedded
// database's data directory (heap, dead row versions and WAL); pg_dump of the run's schema.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { gql, type TestApp } from '../helpers/app.ts';
import { withAppOptions } from '../helpers/fixtures.ts';
import type { Receiver } from '../helpers/receiver.ts';

let app: TestApp;
let hook: Receiver;
// A schema of its own on PostgreSQL, so pg_dump covers exactly this test's data.
const test = withAppOptions({ isolated: true });
test.beforeAll(async ({ app: started, listen }) => {
  app = started;
  hook = await listen();
});

/**
 * The forms a secret could be found in: as given, base64, base64url and hex of its bytes; a whsec_ key's own bytes too.
 */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out = [secret, bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url'), bytes.toString('hex')];
  const key = /^whsec_(.+)$/.exec(secret)?.[1];
  if (key) {
    const raw = Buffer.from(key, 'base64');
    out.push(key.replace(/=+$/, ''), raw.toString('hex'), raw.toString('base64url'));
  }
  // The random part of an API key alone.
  const random = /^crm_(?:live|test)_(.{32})$/.exec(secret)?.[1];
  if (random) out.push(random);
  return out;
}

/** Every row of every table of the run's schema, as text. */
async function tableRows(): Promise<string> {
  const prisma = app.db.prisma;
  const tables = await prisma.$queryRawUnsafe<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(tables.length).toBeGreaterThan(10);
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${table_name}" t`);
    parts.push(...rows.map((r) => `${table_name}: ${r.row}`));
  }
  return parts.join('\n');
}

/** The other dump of this database: the embedded one's data directory, or pg_dump of the schema. */
async function physicalDump(): Promise<{ name: string; bytes: Buffer } | null> {
  if (app.db.pglite) {
    const tar = await app.db.pglite.dumpDataDir('none');
    return { name: 'PGlite data directory', bytes: Buffer.from(await tar.arrayBuffer()) };
  }
  const [{ schema }] = await app.db.prisma.$queryRawUnsafe<{ schema: string }[]>('SELECT current_schema() AS schema');
  try {
    const { stdout } = await promisify(execFile)(
      'pg_dump',
      ['--data-only', `--schema=${schema}`, process.env.DATABASE_URL!],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    return { name: 'pg_dump', bytes: Buffer.from(stdout) };
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return null;
    throw err;
  }
}

describe('secrets at rest', () => {
  it('no API key and no webhook secret is stored in plain text, base64 or hex', async () => {
    const ws = await app.workspace({ plan: 'enterprise' });
    const keys = [
      ws.key,
      (await ws.addKey({ name: 'sandbox', sandbox: true })).key,
      (await ws.addKey({ name: 'reader', scope: 'read_only' })).key,
      (await ws.addKey({ name: 'custom', scope: 'custom', permissions: ['contacts:read', 'webhooks:write'] })).key,
      (await ws.addKey({ name: 'expiring', expiresAt: new Date(Date.now() + 86_400_000).toISOString() })).key,
    ];
    const secrets: string[] = [];
    // Created with a chosen secret, through REST with an Idempotency-Key
    // (its answer, which holds the secret, is kept for replays)...
    const chosen = `chosen-secret-${Date.now()}-abcdefghijklmnop`;
    const created = await ws.api(
      'POST',
      '/v1/webhooks',
      { url: hook.url, events: ['contact.created'], secret: chosen },
      { 'idempotency-key': 'create-webhook-1' },
    );
    expect(created.status, created.text).toBe(201);
    const replay = await ws.api(
      'POST',
      '/v1/webhooks',
      { url: hook.url, events: ['contact.created'], secret: chosen },
      { 'idempotency-key': 'create-webhook-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.secret).toBe(chosen);
    secrets.push(chosen);
    // ... with a generated one, through GraphQL ...
    const generated = await gql(
      app.base,
      ws.key,
      'mutation($input: WebhookCreateInput!) { createWebhook(input: $input) { id secret } }',
      { input: { url: hook.url, events: ['contact.created'] } },
    );
    secrets.push(generated.data.createWebhook.secret);
    // ... and a secret rotated by an update, again with an Idempotency-Key.
    const updated = await ws.api(
      'PUT',
      `/v1/webhooks/${created.body.data.id}`,
      { rotate_secret: true },
      { 'idempotency-key': 'rotate-webhook-1' },
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data.secret).toMatch(/^whsec_/);
    secrets.push(updated.body.data.secret);
    // Deliveries signed with those secrets, and every key used once.
    const sent = await ws.api('POST', `/v1/webhooks/${created.body.data.id}/test`);
    expect(sent.status, sent.text).toBe(200);
    for (const key of keys) expect((await gql(app.base, key, '{ users { total } }')).errors).toBeUndefined();
    expect(hook.hits.length).toBeGreaterThan(0);

    const dumps: { name: string; bytes: Buffer }[] = [{ name: 'table rows', bytes: Buffer.from(await tableRows()) }];
    const physical = await physicalDump();
    if (physical) dumps.push(physical);
    else console.log('secrets at rest: pg_dump is not installed; checked the table rows only');
    let searched = 0;
    for (const dump of dumps) {
      // The dump covers the data: the webhook's URL and a key's displayable prefix are in it.
      expect(dump.bytes.includes(hook.url), dump.name).toBe(true);
      expect(dump.bytes.includes(keys[1].slice(0, 13)), dump.name).toBe(true);
      for (const secret of [...keys, ...secrets]) {
        for (const form of forms(secret)) {
          expect(dump.bytes.includes(form), `${dump.name} holds ${secret.slice(0, 14)}… as ${form.slice(0, 20)}…`).toBe(
            false,
          );
          searched++;
        }
      }
    }
    console.log(
      `secrets at rest: ${keys.length} keys and ${secrets.length} webhook secrets, ` +
        `${searched} forms searched in ${dumps.map((d) => d.name).join(' and ')}`,
    );
  }, 90_000);
});

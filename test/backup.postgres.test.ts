// The PostgreSQL restore drill of docs/operations.md, run as it stands: pg_dump of a running
// service's database, pg_restore into a scratch database, and the service started there answers
// the same key with the same contacts. PostgreSQL only (the pass with DATABASE_URL set).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runShell, shellBlock } from './helpers/doc-shell.ts';
import { freePort, freshStore } from './helpers/processes.ts';
import { seedWorkspace, serviceEnv, startApi, type ServiceProcess } from './helpers/service-process.ts';

const url = process.env.DATABASE_URL;

describe.runIf(url)('PostgreSQL backups', () => {
  it('pass the restore drill of docs/operations.md', { timeout: 240_000 }, async () => {
    const store = await freshStore();
    const files = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-pg-backup-'));
    const drillDb = `crm_drill_${process.pid}_${Date.now().toString(36)}`;
    const drillUrl = new URL(store.env.DATABASE_URL);
    drillUrl.pathname = `/${drillDb}`;
    let service: ServiceProcess | undefined;
    try {
      const ws = await seedWorkspace(store.env.DATABASE_URL);
      service = await startApi(store.env.DATABASE_URL, { DATA_DIR: path.join(files, 'data') });
      const contact = await service.api(ws.key)('POST', '/v1/contacts', { first_name: 'Ada', email: 'ada@pg.example' });
      expect(contact.status, contact.text).toBe(201);

      const r = await runShell(
        shellBlock('docs/operations.md', 'test/backup.postgres.test.ts'),
        {
          ...serviceEnv,
          LOG_LEVEL: 'warn',
          DATA_DIR: path.join(files, 'drill-data'),
          DATABASE_URL: store.env.DATABASE_URL,
          DRILL_DB: drillDb,
          DRILL_URL: drillUrl.toString(),
          BACKUP: path.join(files, 'crm.dump'),
          DRILL_PORT: String(await freePort()),
          KEY: ws.key,
        },
        180_000,
      );
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toContain(contact.body.data.id);
    } finally {
      await service?.stop();
      // The drill drops its database; one it left behind by failing is dropped here.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${drillDb} WITH (FORCE)`).finally(() => admin.end());
      await store.drop();
      fs.rmSync(files, { recursive: true, force: true });
    }
  });
});

import fs from 'node:fs';
import { describe, it, expect } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations, diffSchemaAgainstMigrations, migrationsDir } from '../src/db/migrate.ts';

// Starting PGlite alone takes seconds on a busy 2-core machine; vitest's default is 5 s.
const SLOW = 120_000;

describe('migrations', () => {
  it(
    'match prisma/schema.prisma (no drift)',
    async () => {
      const sql = await diffSchemaAgainstMigrations();
      expect(sql, 'schema.prisma has changes no migration makes: run `npm run db:migration -- <name>`').toBe('');
    },
    SLOW,
  );

  it(
    'apply once to an empty database and keep contacts.search_vector filled',
    async () => {
      const pg = new PGlite();
      try {
        const adapter = new PrismaPGlite(pg);
        const folders = fs
          .readdirSync(migrationsDir, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort();
        expect(folders.length).toBeGreaterThan(0);
        expect(await applyMigrations(adapter)).toEqual(folders);
        expect(await applyMigrations(adapter)).toEqual([]);

        await pg.query(`INSERT INTO workspaces (id, name) VALUES ('ws_mig', 'Migrations')`);
        await pg.query(
          `INSERT INTO contacts (id, workspace_id, first_name, last_name, email, company, custom_fields, updated_at)
         VALUES ('c_mig', 'ws_mig', 'Ada', 'Lovelace', 'ada.l+crm@analytical-engines.example', 'Babbage & Co',
                 '{"tier": "gold", "seats": 12, "vip": true}', now())`,
        );
        const matches = async (words: string) =>
          (
            await pg.query<{ id: string }>(
              `SELECT id FROM contacts WHERE search_vector @@ plainto_tsquery('simple', $1)`,
              [words],
            )
          ).rows.map((r) => r.id);
        expect(await matches('lovelace')).toEqual(['c_mig']);
        expect(await matches('analytical engines')).toEqual(['c_mig']); // email split on . - @ +
        expect(await matches('babbage')).toEqual(['c_mig']);
        expect(await matches('gold 12')).toEqual(['c_mig']); // custom field strings and numbers
        expect(await matches('true')).toEqual([]); // booleans are not indexed
        await pg.query(`UPDATE contacts SET company = 'Difference Ltd' WHERE id = 'c_mig'`);
        expect(await matches('babbage')).toEqual([]);
        expect(await matches('difference')).toEqual(['c_mig']);
      } finally {
        await pg.close();
      }
    },
    SLOW,
  );
});

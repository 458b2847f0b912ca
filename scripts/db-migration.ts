// `npm run db:migration -- <name>`: writes the next migration (schema.prisma vs. committed
// migrations) to prisma/migrations/<UTC timestamp>_<name>/migration.sql, like
// `prisma migrate dev --create-only`, without a database server or native engine.
import fs from 'node:fs/promises';
import path from 'node:path';
import { diffSchemaAgainstMigrations, MIGRATION_LOCK, migrationsDir } from '../src/db/migrate.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const name = process.argv[2];
if (!name || process.argv.length > 3) fail('Usage: npm run db:migration -- <name>   (e.g. add_contact_birthday)');
// Folder names sort by timestamp and end up in _prisma_migrations.migration_name (VARCHAR(255)).
if (!/^[a-z0-9][a-z0-9_]{0,199}$/.test(name)) {
  fail(`Invalid migration name "${name}": use lowercase letters, digits and underscores (at most 200).`);
}

const sql = await diffSchemaAgainstMigrations();
if (sql === '') fail('prisma/schema.prisma matches the migrations: nothing to write.');

const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = path.join(migrationsDir, `${stamp}_${name}`);
await fs.mkdir(dir, { recursive: true });
await fs.writeFile(path.join(dir, 'migration.sql'), sql, { flag: 'wx' });
// 'wx' leaves an existing lock file alone.
await fs
  .writeFile(path.join(migrationsDir, 'migration_lock.toml'), MIGRATION_LOCK, { flag: 'wx' })
  .catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
console.log(`Wrote ${path.relative(process.cwd(), path.join(dir, 'migration.sql'))}`);

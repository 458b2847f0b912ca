import { defineConfig } from 'prisma/config';

// Prisma reads this for `prisma generate`. Migrations are created and applied by
// src/db/migrate.ts with the WASM schema engine, so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});

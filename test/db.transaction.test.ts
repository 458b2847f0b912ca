import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.ts';
import { transaction, withRefusals, type Refusals } from '../src/db/transaction.ts';
import { AppError } from '../src/errors.ts';
import { newId } from '../src/ids.ts';
import { openTestDatabase } from './helpers/app.ts';

// The one place that reads the database's refusals: each becomes the error the caller named,
// on PGlite and PostgreSQL alike, and the transaction's other writes are rolled back.
let db: Database;
let workspaceId: string;

const REFUSALS: Refusals = {
  uniqueViolation: () => new AppError('conflict', 'taken'),
  foreignKeyViolation: () => new AppError('conflict', 'gone'),
  recordNotFound: () => new AppError('not_found', 'missing'),
};

async function refusal(work: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as { code?: string; message: string };
}

beforeAll(async () => {
  db = await openTestDatabase();
  workspaceId = newId('ws');
  await db.prisma.workspace.create({ data: { id: workspaceId, name: 'Refusals' } });
});
afterAll(() => db.close());

describe('transaction', () => {
  it("answers a unique violation with the caller's error and rolls the transaction back", async () => {
    const name = `rolled back ${newId('x')}`;
    const err = await refusal(
      transaction(
        db.prisma,
        async (tx) => {
          await tx.workspace.create({ data: { id: newId('ws'), name } });
          await tx.workspace.create({ data: { id: workspaceId, name: 'again' } });
        },
        REFUSALS,
      ),
    );
    expect(err).toMatchObject({ code: 'conflict', message: 'taken' });
    expect(await db.prisma.workspace.count({ where: { name } })).toBe(0);
  });

  it("answers a row referred to that does not exist with the caller's error", async () => {
    const write = transaction(
      db.prisma,
      (tx) => tx.pipeline.create({ data: { id: newId('pipe'), workspaceId: newId('ws'), name: 'Orphan' } }),
      REFUSALS,
    );
    expect(await refusal(write)).toMatchObject({ code: 'conflict', message: 'gone' });
  });

  it("answers a write by key to a row that does not exist with the caller's error", async () => {
    const update = { where: { id: newId('ws') }, data: { name: 'x' } };
    const write = transaction(db.prisma, (tx) => tx.workspace.update(update), REFUSALS);
    expect(await refusal(write)).toMatchObject({ code: 'not_found', message: 'missing' });
  });

  it('rethrows a refusal the caller did not name as it came', async () => {
    const write = transaction(db.prisma, (tx) => tx.workspace.create({ data: { id: workspaceId, name: 'again' } }), {
      recordNotFound: REFUSALS.recordNotFound,
    });
    const err = await refusal(write);
    expect(err).not.toBeInstanceOf(AppError);
    expect(err.code).toBe('P2002');
  });

  it('returns what the work returns', async () => {
    expect(await transaction(db.prisma, (tx) => tx.workspace.count({ where: { id: workspaceId } }), REFUSALS)).toBe(1);
  });
});

describe('withRefusals', () => {
  it('reads the refusal of a raw statement outside a transaction the same way', async () => {
    const insert = () => db.prisma.$executeRaw`INSERT INTO workspaces (id, name) VALUES (${workspaceId}, 'raw')`;
    expect(await refusal(withRefusals(REFUSALS, insert))).toMatchObject({ code: 'conflict', message: 'taken' });
  });
});

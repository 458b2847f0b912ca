// The copy a backup takes, on PGlite itself: asked for while a transaction is open, it waits for
// that transaction and holds all of it. PGlite's own dumpDataDir() does not wait: taken at the same
// moment it holds none of the transaction (recovery drops what was not committed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, it } from 'vitest';
import { readBackup } from '../src/backup/file-format.ts';
import { dumpBetweenTransactions, snapshot } from '../src/backup/snapshot.ts';
import { until } from './helpers/receiver.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-snapshot-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function ids(dump: Blob): Promise<number[]> {
  const copy = await PGlite.create({ loadDataDir: dump });
  try {
    return (await copy.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id);
  } finally {
    await copy.close();
  }
}

it('a copy asked for during a transaction waits for it and holds all of it', { timeout: 120_000 }, async () => {
  const pglite = await PGlite.create();
  try {
    await pglite.exec('CREATE TABLE t (id int PRIMARY KEY)');
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const tx = pglite.transaction(async (t) => {
      await t.query('INSERT INTO t VALUES (1)');
      await held;
      await t.query('INSERT INTO t VALUES (2)');
    });
    expect(await until(() => pglite.isInTransaction())).toBe(true);

    const copy = snapshot(pglite);
    const dump = dumpBetweenTransactions(pglite);
    const raw = await pglite.dumpDataDir('none'); // taken now, between the transaction's two statements
    finish();
    await tx;
    expect(await ids(await dump)).toEqual([1, 2]);

    const file = path.join(dir, 'copy.backup');
    fs.writeFileSync(file, Buffer.concat((await copy).parts));
    const { payload } = await readBackup(file);
    expect(await ids(new Blob([await promisify(zlib.gunzip)(payload)]))).toEqual([1, 2]);
    expect(await ids(raw)).toEqual([]);
  } finally {
    await pglite.close();
  }
});

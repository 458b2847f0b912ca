// docs/imports.md's walk-through, run as it stands with curl against a live service: the upload,
// the job's progress and the failed rows file it shows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { runShell, shellBlock } from './helpers/doc-shell.ts';
import { it } from './helpers/fixtures.ts';

it('docs/imports.md: the curl walk-through imports Ada and lists Grace as failed', async ({ app }) => {
  const ws = await app.workspace();
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
  app.importRunner();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-imports-doc-'));
  try {
    const block = shellBlock('docs/imports.md', 'test/imports.docs.test.ts');
    const r = await runShell(`cd "$WORK"\n${block}`, { KEY: ws.key, BASE: app.base, WORK: work }, 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]).data).toMatchObject({
      status: 'completed',
      rows_read: 2,
      rows_written: 1,
      rows_failed: 1,
    });
    // The page shows the file as the service writes it.
    const page = fs.readFileSync('docs/imports.md', 'utf8');
    const shown = /`failed\.csv` then holds[^\n]*\n\n```text\n([\s\S]*?)```/.exec(page)![1];
    expect(fs.readFileSync(path.join(work, 'failed.csv'), 'utf8').replaceAll('\r\n', '\n')).toBe(shown);
    const ada = (await ws.api('GET', '/v1/contacts?limit=10')).body.data;
    expect(ada).toEqual([
      expect.objectContaining({ first_name: 'Ada', company: 'Acme', custom_fields: { tier: 'gold' } }),
    ]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}, 90_000);

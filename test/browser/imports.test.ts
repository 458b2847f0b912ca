// The imports page in Chromium: a small CSV with one bad row uploaded through the page, its columns
// mapped (a guessed one, a chosen one, a skipped one), the job followed live to its counts, and
// its failed rows downloaded and read; the same for a JSON Lines file, its keys mapped; the API's
// details shown next to the form; both window sizes, no sideways scrolling, and the keyboard.
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, type TestWorkspace } from '../helpers/app.ts';
import { atBothSizes, signedInPage } from './browser.ts';

let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
/** Script errors, CSP violations and requests to other hosts, over the whole file. */
const problems: string[] = [];

const csv = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
const isFocused = (locator: ReturnType<Page['locator']>) => locator.evaluate((e) => e === document.activeElement);

beforeAll(async () => {
  ({ ws, page, close } = await signedInPage({
    beforeSignIn: async ({ app, ws, page }) => {
      app.importRunner();
      await ws.addCustomField('tier', 'select', ['gold', 'silver']);
      page.on('pageerror', (err) => problems.push(err.message));
      page.on('console', (m) => m.text().includes('Content Security Policy') && problems.push(m.text()));
      page.on('request', (r) => new URL(r.url()).origin !== app.base && problems.push(`request to ${r.url()}`));
    },
  }));
});

afterAll(() => close?.());

describe('imports page', () => {
  it('shows the empty list and the form at both sizes', async () => {
    await page.getByRole('link', { name: 'Imports' }).click();
    await page.getByRole('heading', { name: 'Imports', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('cell', { name: 'No imports yet.' }).count()).toBe(1);
    await atBothSizes(page, 'imports-empty');
  });

  it('uploads a CSV with one bad row, maps its columns, follows the job and downloads the failed rows', async () => {
    const ada = uniqueEmail('ada');
    const lin = uniqueEmail('lin');
    await page
      .getByLabel('File (CSV or JSON Lines)')
      .setInputFiles(
        csv(
          'people.csv',
          `Full name,E-mail,Tier,Notes\nAda,${ada},gold,first\nGrace,not-an-email,silver,second\nLin,${lin},,third\n`,
        ),
      );
    // Guessed from the header: E-mail → email, Tier → the custom field; the others skipped.
    const field = (column: string) => page.getByLabel(`Field for ${column}`);
    await expect.poll(() => field('E-mail').inputValue()).toBe('email');
    expect(await field('Tier').inputValue()).toBe('custom_fields.tier');
    expect(await field('Full name').inputValue()).toBe('');
    expect(await field('Notes').inputValue()).toBe('');
    // The resource's fields, with the workspace's custom field.
    const offered = await field('Full name').locator('option').allTextContents();
    expect(offered).toEqual(expect.arrayContaining(['first_name', 'email', 'address.city', 'custom_fields.tier']));
    await field('Full name').selectOption('first_name');
    await atBothSizes(page, 'imports-mapping');

    await page.getByRole('button', { name: 'Import' }).click();
    const progress = page.locator('section.import-progress');
    await expect.poll(() => progress.getByRole('status').textContent()).toBe('Completed: 2 written, 1 failed.');
    expect(await progress.getByTestId('rows-read').textContent()).toBe('3');
    expect(await progress.getByTestId('rows-written').textContent()).toBe('2');
    expect(await progress.getByTestId('rows-failed').textContent()).toBe('1');
    expect(await progress.locator('progress').getAttribute('value')).toBe('100');
    expect(await progress.getByRole('heading').textContent()).toBe('Import of people.csv');
    const row = page.getByRole('row', { name: /people\.csv/ });
    await expect.poll(() => row.textContent()).toContain('Completed');
    await atBothSizes(page, 'imports-completed');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      progress.getByRole('link', { name: 'Download failed rows (1)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^imp_\w+-failed-rows\.csv$/);
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(
      'error,line,Full name,E-mail,Tier,Notes\r\n' +
        'Invalid fields: email: must be a valid email address,3,Grace,not-an-email,silver,second\r\n',
    );

    // What the page mapped is what the API wrote.
    const contacts = (await ws.api('GET', '/v1/contacts?limit=100')).body.data;
    expect(contacts.find((c: { email: string }) => c.email === ada)).toMatchObject({
      first_name: 'Ada',
      custom_fields: { tier: 'gold' },
      source: 'import',
    });
    expect(contacts.find((c: { email: string }) => c.email === lin)).toMatchObject({ first_name: 'Lin' });
  });

  it('shows the API’s details next to the form: upsert by a key no column fills', async () => {
    await page.getByLabel('File (CSV or JSON Lines)').setInputFiles(csv('names.csv', 'Name\nAda\n'));
    await page.getByLabel('Field for Name').selectOption('first_name');
    await page.getByLabel('Update or create').check();
    await page.getByLabel('Match records by').selectOption('email');
    await page.getByRole('button', { name: 'Import' }).click();
    const alert = page.locator('form').getByRole('alert');
    // The upload, then the mutation's refusal: on a machine busy with other suites, more than the usual
    // 10 s; less than the test's 30 s, so a failure says what the alert held.
    await expect
      .poll(() => alert.locator('li').textContent(), { timeout: 20_000 })
      .toBe('mapping must fill email, which the upsert matches records by');
    await atBothSizes(page, 'imports-error');
    await page.getByLabel('Create', { exact: true }).check();
  });

  it('works from the keyboard: file, resource, mapping, import, download', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Imports', level: 1 }).waitFor();
    const file = page.getByLabel('File (CSV or JSON Lines)');
    await file.setInputFiles(csv('keyboard.csv', `Name,Mail\nKim,${uniqueEmail('kim')}\nBad,nope\n`));
    await file.focus();
    await page.keyboard.press('Tab');
    const records = page.getByLabel('Records');
    expect(await isFocused(records)).toBe(true);
    // Contacts → Companies → Contacts, with the arrow keys.
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => records.inputValue()).toBe('companies');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => records.inputValue()).toBe('contacts');
    await page.keyboard.press('Tab');
    expect(await isFocused(page.getByLabel('Create', { exact: true }))).toBe(true);
    await page.keyboard.press('Tab');
    const name = page.getByLabel('Field for Name');
    expect(await isFocused(name)).toBe(true);
    await name.selectOption('first_name');
    await page.keyboard.press('Tab');
    const mail = page.getByLabel('Field for Mail');
    expect(await isFocused(mail)).toBe(true);
    await mail.selectOption('email');
    await page.keyboard.press('Tab');
    expect(await isFocused(page.getByRole('button', { name: 'Import' }))).toBe(true);
    await page.keyboard.press('Enter');
    const progress = page.locator('section.import-progress');
    await expect.poll(() => progress.getByRole('status').textContent()).toBe('Completed: 1 written, 1 failed.');
    expect(await progress.getByRole('heading').textContent()).toBe('Import of keyboard.csv');
    const link = progress.getByRole('link', { name: 'Download failed rows (1)' });
    await link.focus();
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(fs.readFileSync((await download.path())!, 'utf8')).toContain('3,Bad,nope');
  });

  it('uploads a JSON Lines file with one bad row: keys mapped, the job followed, failed rows downloaded', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Imports', level: 1 }).waitFor();
    const kai = uniqueEmail('kai');
    const mo = uniqueEmail('mo');
    const lines = [
      JSON.stringify({ given: 'Kai', email: kai, tier: 'gold' }),
      JSON.stringify({ given: 'Bad', email: 'not-an-email' }),
      '',
      JSON.stringify({ given: 'Mo', email: mo, extra: 1 }),
    ];
    // A browser sends .jsonl with no type of its own: the page reads the format from the name.
    await page.getByLabel('File (CSV or JSON Lines)').setInputFiles({
      name: 'people.jsonl',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(`${lines.join('\n')}\n`),
    });
    const field = (key: string) => page.getByLabel(`Field for ${key}`);
    await expect.poll(() => field('email').inputValue()).toBe('email');
    expect(await field('tier').inputValue()).toBe('custom_fields.tier');
    expect(await field('given').inputValue()).toBe('');
    expect(await field('extra').inputValue()).toBe('');
    expect(await page.locator('table.mapping caption').textContent()).toBe('Keys of the first lines of people.jsonl');
    await field('given').selectOption('first_name');
    await atBothSizes(page, 'imports-jsonl-mapping');

    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/dashboard/api/imports')),
      page.getByRole('button', { name: 'Import' }).click(),
    ]);
    const job = (await answer.json()).data;
    expect(job).toMatchObject({ format: 'jsonl', filename: 'people.jsonl' });
    expect(job.mapping).toEqual({ given: 'first_name', email: 'email', tier: 'custom_fields.tier' });
    const progress = page.locator('section.import-progress');
    await expect.poll(() => progress.getByRole('status').textContent()).toBe('Completed: 2 written, 1 failed.');
    expect(await progress.getByTestId('rows-read').textContent()).toBe('3');
    expect(await progress.locator('progress').getAttribute('value')).toBe('100');
    expect(await progress.getByRole('heading').textContent()).toBe('Import of people.jsonl');
    await atBothSizes(page, 'imports-jsonl-completed');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      progress.getByRole('link', { name: 'Download failed rows (1)' }).click(),
    ]);
    const failed = fs.readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(failed[0]).toBe('error,line,data');
    expect(failed[1]).toMatch(/^Invalid fields: email: must be a valid email address,2,"\{""given"":""Bad""/);
    expect(failed.slice(2)).toEqual(['']);

    const contacts = (await ws.api('GET', '/v1/contacts?limit=100')).body.data;
    expect(contacts.find((c: { email: string }) => c.email === kai)).toMatchObject({
      first_name: 'Kai',
      custom_fields: { tier: 'gold' },
    });
    expect(contacts.find((c: { email: string }) => c.email === mo)).toMatchObject({ first_name: 'Mo' });
  });

  it('says when a JSON Lines file holds no object', async () => {
    await page.getByLabel('File (CSV or JSON Lines)').setInputFiles({
      name: 'broken.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from('not json\n[1, 2]\n'),
    });
    await page.getByText('The first lines hold no JSON object with keys').waitFor();
    expect(await page.getByRole('button', { name: 'Import' }).isDisabled()).toBe(true);
  });

  it('ran without a script error, a CSP violation or a request to another host', () => {
    expect(problems).toEqual([]);
  });
});

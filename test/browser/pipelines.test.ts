// Pipelines and stages in the dashboard: a pipeline created with stages, one more added, one
// renamed, a probability refused with the API's details then set, stages reordered from the
// keyboard and by drag and drop, a stage holding deals kept and an empty one deleted, each checked
// through the API, and the board showing the result. Both window sizes, no sideways scrolling.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { atBothSizes, signedInPage } from './browser.ts';

let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
let pipelineId: string;
const problems: string[] = [];

const row = (name: string) => page.locator('li.stage-row', { has: page.locator('.stage-name', { hasText: name }) });
const shownNames = () => page.locator('li.stage-row .stage-name').allTextContents();
const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));

async function apiStages(): Promise<{ id: string; name: string; position: number; probability: number }[]> {
  const { body } = await ws.api('GET', `/v1/pipelines/${pipelineId}`);
  return body.data.stages;
}

beforeAll(async () => {
  ({ ws, page, close } = await signedInPage({
    isolated: true,
    beforeSignIn: ({ page }) => page.on('pageerror', (err) => problems.push(err.message)),
  }));
});

afterAll(() => close?.());

describe('pipelines and stages', () => {
  it('opens from the board with the default pipeline and its stages', async () => {
    await page.getByRole('link', { name: 'Edit pipelines and stages' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pipelines and stages' }).waitFor();
    await expect.poll(shownNames).toEqual(['Lead', 'Qualified', 'Proposal', 'Negotiation', 'Closed']);
    await atBothSizes(page, 'pipelines');
  });

  it('creates a pipeline with two stages and adds a third', async () => {
    await page.getByLabel('Pipeline name', { exact: true }).fill('Partners');
    await page.getByRole('textbox', { name: /^Stages/ }).fill('Intro\nPilot\n');
    await page.getByRole('button', { name: 'Create pipeline' }).click();
    await page.getByRole('heading', { level: 2, name: 'Partners' }).waitFor();
    await expect.poll(shownNames).toEqual(['Intro', 'Pilot']);
    pipelineId = new URL(page.url()).searchParams.get('id') ?? '';
    expect(pipelineId).toMatch(/^pip/);

    await page.getByLabel('Stage name').fill('Contract');
    await page.getByLabel('Win probability (%)').fill('80');
    await page.getByRole('button', { name: 'Add stage' }).click();
    await expect.poll(shownNames).toEqual(['Intro', 'Pilot', 'Contract']);
    expect(await page.getByLabel('Stage name').inputValue()).toBe('');
    expect((await apiStages()).map((s) => [s.name, s.probability])).toEqual([
      ['Intro', 0],
      ['Pilot', 0],
      ['Contract', 80],
    ]);
  });

  it('renames a stage and sets a probability, showing the API’s details for a bad one', async () => {
    await page.getByRole('button', { name: 'Edit name of Pilot' }).click();
    await page.getByLabel('name of Pilot', { exact: true }).fill('Trial');
    await page.keyboard.press('Enter');
    await expect.poll(shownNames).toEqual(['Intro', 'Trial', 'Contract']);

    await page.getByRole('button', { name: 'Edit win probability of Intro' }).click();
    await page.getByLabel('win probability of Intro', { exact: true }).fill('150');
    await page.keyboard.press('Enter');
    const alert = row('Intro').getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('li').textContent()).toContain('probability');
    await atBothSizes(page, 'pipelines-probability-refused');
    await page.getByLabel('win probability of Intro', { exact: true }).fill('20');
    await page.keyboard.press('Enter');
    await expect.poll(() => row('Intro').getByTestId('stage-probability').textContent()).toBe('20%');
    expect((await apiStages()).map((s) => [s.name, s.probability])).toEqual([
      ['Intro', 20],
      ['Trial', 0],
      ['Contract', 80],
    ]);
  });

  it('reorders from the keyboard, focus staying on the button, and by dragging', async () => {
    await page.getByRole('button', { name: 'Move Contract up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(shownNames).toEqual(['Intro', 'Contract', 'Trial']);
    await expect.poll(focusedLabel).toBe('Move Contract up');
    await expect.poll(() => page.getByText('Moved Contract to position 2 of 3.').count()).toBe(1);
    expect((await apiStages()).map((s) => s.name)).toEqual(['Intro', 'Contract', 'Trial']);

    await row('Intro').locator('.stage-handle').dragTo(row('Trial'));
    await expect.poll(shownNames).toEqual(['Contract', 'Trial', 'Intro']);
    await expect
      .poll(async () => (await apiStages()).map((s) => [s.name, s.position]))
      .toEqual([
        ['Contract', 1],
        ['Trial', 2],
        ['Intro', 3],
      ]);
    await atBothSizes(page, 'pipelines-reordered');
  });

  it('the board shows the stages in their new order with their probabilities', async () => {
    await page.getByRole('link', { name: 'Open its board' }).click();
    await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
    const columns = page.locator('section.column h2');
    await expect.poll(() => columns.allTextContents()).toEqual(['Contract', 'Trial', 'Intro']);
    expect(await page.locator('section.column', { hasText: 'Intro' }).locator('.totals').textContent()).toContain(
      '20%',
    );
    await atBothSizes(page, 'pipelines-board');
  });

  it('keeps a stage that holds deals, saying why, and deletes an empty one', async () => {
    const stages = await apiStages();
    await ws.api('POST', '/v1/deals', {
      title: 'Reseller pilot',
      pipeline_id: pipelineId,
      stage_id: stages.find((s) => s.name === 'Trial')?.id,
    });
    await page.getByRole('link', { name: 'Edit pipelines and stages' }).click();
    await expect.poll(shownNames).toEqual(['Contract', 'Trial', 'Intro']);
    const keep = page.getByRole('button', { name: 'Delete Trial' });
    expect(await keep.isDisabled()).toBe(true);
    expect(await row('Trial').textContent()).toContain('move them to another stage before deleting it');

    await page.getByRole('button', { name: 'Delete Intro' }).click();
    await page.getByRole('button', { name: 'Delete Intro' }).click();
    await expect.poll(shownNames).toEqual(['Contract', 'Trial']);
    expect((await apiStages()).map((s) => s.name)).toEqual(['Contract', 'Trial']);
  });

  it('renames the pipeline and makes it the default', async () => {
    await page.getByRole('button', { name: 'Edit pipeline name' }).click();
    await page.getByLabel('pipeline name', { exact: true }).fill('Partner deals');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Partner deals' }).waitFor();
    await page.getByRole('button', { name: 'Make default' }).click();
    await page.getByText('Default pipeline').waitFor();
    const { body } = await ws.api('GET', `/v1/pipelines/${pipelineId}`);
    expect(body.data).toMatchObject({ name: 'Partner deals', is_default: true });
    expect(problems).toEqual([]);
  });
});

// Every page of the dashboard, checked by axe-core (the accessibility engine behind Lighthouse and
// most audit tools) at a laptop's and a phone's size: no serious or critical violation, and no
// sideways scrolling. axe is injected from node_modules, so the page loads nothing from elsewhere.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { SIZES, signedInPage } from './browser.ts';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

let context: BrowserContext;
let ws: TestWorkspace;
let close: () => Promise<void>;
let pages: [string, string][];

beforeAll(async () => {
  ({ context, ws, close } = await signedInPage());
  // Something on every page, so that lists, forms and records are checked filled, not only empty.
  const contact = (
    await ws.api('POST', '/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' })
  ).body.data;
  await ws.api('POST', `/v1/contacts/${contact.id}/notes`, { content: 'Met at the **Analytical Engine** demo.' });
  const twin = (
    await ws.api('POST', '/v1/contacts', { first_name: 'Augusta', last_name: 'King', email: 'augusta@example.com' })
  ).body.data;
  const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  const deal = (
    await ws.api('POST', '/v1/deals', {
      title: 'Engine licence',
      value: 1200,
      pipeline_id: pipeline.id,
      contact_id: contact.id,
    })
  ).body.data;
  await ws.api('POST', '/v1/tasks', { title: 'Send the notes', related_to_type: 'contact', related_to_id: contact.id });
  await ws.api('POST', '/v1/activities', { type: 'call', subject: 'First call', contact_id: contact.id });
  const company = (await ws.api('POST', '/v1/companies', { name: 'Analytical Engines', domain: 'engines.example' }))
    .body.data;
  await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id: company.id });
  await ws.api('PUT', `/v1/deals/${deal.id}`, { company_id: company.id });
  // The company page's notes, activities and tasks show their own records too.
  await ws.api('POST', `/v1/companies/${company.id}/notes`, { content: 'Met at the **fair**' });
  await ws.api('POST', '/v1/activities', { type: 'meeting', subject: 'Demo', company_id: company.id });
  await ws.api('POST', '/v1/tasks', { title: 'Quote', related_to_type: 'company', related_to_id: company.id });
  pages = [
    ['/dashboard/pipeline', 'pipeline'],
    ['/dashboard/pipelines', 'pipelines and stages'],
    [`/dashboard/deals/${deal.id}`, 'deal'],
    ['/dashboard/contacts', 'contacts'],
    ['/dashboard/contacts/new', 'new contact'],
    [`/dashboard/contacts/${contact.id}`, 'contact'],
    ['/dashboard/companies', 'companies'],
    ['/dashboard/companies/new', 'new company'],
    [`/dashboard/companies/${company.id}`, 'company'],
    ['/dashboard/contacts?status=lead&tag=vip&sort=name', 'contacts filtered'],
    [`/dashboard/contacts/${contact.id}/merge?with=${twin.id}`, 'merge contacts'],
    ['/dashboard/tasks', 'tasks'],
    ['/dashboard/activity', 'activity'],
    ['/dashboard/keys', 'API keys'],
    ['/dashboard/webhooks', 'webhooks'],
    ['/dashboard/webhooks/new', 'new webhook'],
    ['/dashboard/custom-fields', 'custom fields'],
    ['/dashboard/audit', 'audit log'],
    ['/dashboard/imports', 'imports'],
    ['/dashboard/insight', 'insight'],
    ['/dashboard/team', 'team'],
    ['/dashboard/set-password', 'set password'],
  ];
});

afterAll(() => close?.());

/** axe's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's devtools protocol: the dashboard's CSP rightly refuses inline scripts.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return (violations as Violation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('every dashboard page', () => {
  for (const [size, viewport] of Object.entries(SIZES)) {
    // Each page takes one to three seconds (load, network idle, axe): more than the default 30 s in all.
    it(`has no serious accessibility violation and no sideways scrolling on a ${size}`, {
      timeout: 120_000,
    }, async () => {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      const found: string[] = [];
      for (const [path, name] of pages) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        for (const v of await seriousViolations(page)) found.push(`${name}: ${v}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
        if (wide) {
          // The outermost elements that reach past the window's right edge, to say what is too wide.
          const culprits = await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
              .filter(
                (e) => !(e.parentElement && e.parentElement.getBoundingClientRect().right > window.innerWidth + 1),
              )
              .map((e) => {
                const chain: string[] = [];
                for (let x: Element | null = e; x && chain.length < 4; x = x.parentElement)
                  chain.push(`${x.tagName.toLowerCase()}.${String(x.className)}`);
                return chain.join(' < ');
              }),
          );
          found.push(`${name}: scrolls sideways at ${viewport.width} px (${culprits.join(', ')})`);
        }
      }
      await page.close();
      expect(found).toEqual([]);
    });
  }
});

describe('the contact search on the deal page', () => {
  // Its ARIA attributes are set by @github/combobox-nav while the list is open, not rendered by the page.
  it('has no serious accessibility violation with its list open and an option active', async () => {
    const page = await context.newPage();
    await page.goto(pages.find(([, name]) => name === 'deal')![0]);
    const search = page.getByRole('combobox', { name: 'Contact', exact: true });
    await search.fill('Ada');
    await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor();
    // The first (here the only) match is the active one.
    expect(await search.getAttribute('aria-activedescendant')).toBeTruthy();
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});

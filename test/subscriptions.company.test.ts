// companyChanged over graphql-ws, fed from the committed event log: one company's own events and
// those of its contacts and deals, its merge and deletion; refused without companies:read, nothing
// of another workspace's company, and ended with its key.
import { afterEach, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../src/events/bus.ts';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { subscribe, type TestSubscription } from './helpers/subscriptions.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const open: TestSubscription[] = [];

const test = withAppOptions(() => ({ bus: fileBus() }));
test.beforeAll(async ({ app: started, ws: main, other: neighbour, feed }) => {
  void feed;
  app = started;
  ws = main;
  other = neighbour;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const CHANGED = `subscription ($id: ID) { companyChanged(id: $id) {
  id event company_id record_id sequence data company { id name industry } } }`;

/** companyChanged(id) for `key`, listening once a probe about that company has come through. */
async function watch(key: string, id: string, t: TestWorkspace = ws): Promise<TestSubscription> {
  const sub = subscribe(app.base, { authorization: `Bearer ${key}` }, CHANGED, { id });
  open.push(sub);
  await sub.ready(app.bus, probe(id, t));
  return sub;
}
const probe = (companyId: string, t: TestWorkspace = ws): Omit<PublishedEvent, 'id' | 'timestamp'> => ({
  event: 'company.updated',
  workspaceId: t.id,
  entityType: 'company',
  entityId: companyId,
  sequence: 1,
  data: {},
});
async function newCompany(t: TestWorkspace = ws, name = 'Live Co'): Promise<{ id: string; name: string }> {
  const r = await t.api('POST', '/v1/companies', { name });
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}
const events = (sub: TestSubscription) => sub.received.map((d) => d.companyChanged.event);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('companyChanged(id)', () => {
  it("receives that company's updates with the company as it is now, and nothing of another company", async () => {
    const watched = await newCompany();
    const unwatched = await newCompany();
    const sub = await watch(ws.key, watched.id);
    expect((await ws.api('PUT', `/v1/companies/${unwatched.id}`, { industry: 'Other' })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/companies/${watched.id}`, { industry: 'Watched' })).status).toBe(200);
    const got = await sub.waitFor((d) => d.companyChanged.event === 'company.updated');
    expect(got.companyChanged).toMatchObject({
      company_id: watched.id,
      record_id: watched.id,
      data: { company: { id: watched.id, industry: 'Watched', version: 2 }, changes: ['industry'] },
      company: { id: watched.id, industry: 'Watched' },
    });
    // Its own company.created may still come by (published after commit); the other's update never does.
    expect(sub.received.map((d) => d.companyChanged.company_id)).toEqual(sub.received.map(() => watched.id));
  });

  it('receives its contacts and deals coming, changing and leaving, and not those of another company', async () => {
    const watched = await newCompany();
    const elsewhere = await newCompany();
    const sub = await watch(ws.key, watched.id);
    const contact = (
      await ws.api('POST', '/v1/contacts', { first_name: 'Ada', email: uniqueEmail('co'), company_id: watched.id })
    ).body.data;
    await ws.api('POST', '/v1/contacts', { first_name: 'Bob', email: uniqueEmail('co'), company_id: elsewhere.id });
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const deal = (
      await ws.api('POST', '/v1/deals', { title: 'Licence', pipeline_id: pipeline.id, company_id: watched.id })
    ).body.data;
    expect((await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id: elsewhere.id })).status).toBe(200);
    await sub.waitFor((d) => d.companyChanged.event === 'contact.updated');
    await sub.waitFor((d) => d.companyChanged.event === 'deal.created');
    const joined = sub.received.find((d) => d.companyChanged.event === 'contact.created').companyChanged;
    expect(joined).toMatchObject({ company_id: watched.id, record_id: contact.id, company: { id: watched.id } });
    // The contact that left names the company it moved to, and is reported to the one it left.
    const left = sub.received.find((d) => d.companyChanged.event === 'contact.updated').companyChanged;
    expect(left).toMatchObject({ company_id: elsewhere.id, record_id: contact.id, data: { previous: {} } });
    expect(left.data.previous.company_id).toBe(watched.id);
    expect(sub.received.find((d) => d.companyChanged.event === 'deal.created').companyChanged).toMatchObject({
      company_id: watched.id,
      record_id: deal.id,
    });
    expect(sub.received.filter((d) => d.companyChanged.event === 'contact.created')).toHaveLength(1);
  });

  it('tells both companies of a merge, the merged-away one with the survivor; then a deletion', async () => {
    const primary = await newCompany(ws, 'Survivor');
    const secondary = await newCompany(ws, 'Duplicate');
    const [onPrimary, onSecondary] = [await watch(ws.key, primary.id), await watch(ws.key, secondary.id)];
    const merged = await ws.api('POST', '/v1/companies/merge', { primary_id: primary.id, secondary_id: secondary.id });
    expect(merged.status, merged.text).toBe(200);
    for (const sub of [onPrimary, onSecondary]) {
      const got = await sub.waitFor((d) => d.companyChanged.event === 'company.merged');
      expect(got.companyChanged).toMatchObject({
        company_id: primary.id,
        data: { company: { id: primary.id }, merged_company: { id: secondary.id, name: 'Duplicate' } },
        company: { id: primary.id, name: 'Survivor' },
      });
    }
    expect((await ws.api('DELETE', `/v1/companies/${primary.id}`)).status).toBe(200);
    const gone = await onPrimary.waitFor((d) => d.companyChanged.event === 'company.deleted');
    expect(gone.companyChanged).toMatchObject({ company_id: primary.id, company: null });
  });
});

describe('who may subscribe', () => {
  it('needs companies:read', async () => {
    const contactsReader = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const sub = subscribe(app.base, { authorization: `Bearer ${contactsReader.key}` }, CHANGED, { id: 'cmp_any' });
    open.push(sub);
    await sub.ended;
    expect(sub.errors[0]).toMatchObject({ extensions: { code: 'forbidden' } });
    expect(sub.received).toEqual([]);
  });

  it('sends a key without contacts:read none of the contacts’ events, its company’s still', async () => {
    const companiesReader = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    const company = await newCompany();
    const sub = await watch(companiesReader.key, company.id);
    await ws.api('POST', '/v1/contacts', { first_name: 'Hidden', email: uniqueEmail('co'), company_id: company.id });
    await ws.api('PUT', `/v1/companies/${company.id}`, { industry: 'Seen' });
    await sub.waitFor((d) => d.companyChanged.event === 'company.updated');
    expect(events(sub).filter((e) => !e.startsWith('company.'))).toEqual([]);
  });

  it("given another workspace's company id, receives nothing of it", async () => {
    const theirs = await newCompany(other, 'Neighbour');
    const mine = subscribe(app.base, { authorization: `Bearer ${ws.key}` }, CHANGED, { id: theirs.id });
    open.push(mine);
    // The caller's own probe naming that id shows the subscription is listening in its own workspace.
    await mine.ready(app.bus, probe(theirs.id));
    const watching = await watch(other.key, theirs.id, other);
    expect((await other.api('PUT', `/v1/companies/${theirs.id}`, { industry: 'Private' })).status).toBe(200);
    await watching.waitFor((d) => d.companyChanged.event === 'company.updated');
    await sleep(100);
    expect(mine.received).toEqual([]);
  });

  it('ends when its key is revoked', async () => {
    const doomed = await ws.addKey({});
    const company = await newCompany();
    const sub = await watch(doomed.key, company.id);
    await app.db.prisma.apiKey.update({ where: { id: doomed.id }, data: { revokedAt: new Date() } });
    const late = sleep(5_000).then(() => 'still open');
    expect(await Promise.race([sub.ended.then(() => 'ended'), late])).toBe('ended');
    expect(sub.errors[0]).toMatchObject({ code: 4401 });
  });
});

// Companies as records (issue 16, part 1): every /v1/companies route and its GraphQL field, the
// events they write, the links of contacts and deals, the workspace setting that links new
// contacts by e-mail domain, bad input by class, permissions and tenant isolation.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type Client } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

let n = 0;
/** A domain no other test of the run uses. */
const uniqueDomain = (name = 'acme') => `${name}-${Date.now().toString(36)}-${++n}.example`;

const newCompany = (extra: Record<string, unknown> = {}) => ({ name: 'Acme', domain: uniqueDomain(), ...extra });

async function created(api: Client, path: string, body: Record<string, unknown>) {
  const r = await api('POST', path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body.data;
}

let pipelineId: string;
let ownerId: string;

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
  await ws.addCustomField('founded', 'number');
  ownerId = (await ws.addUser('Company Owner')).id;
  pipelineId = (await ws.api('GET', '/v1/pipelines')).body.data[0].id;
});

describe('create', () => {
  it('answers 201 with every field, the domain normalised', async ({ ws }) => {
    const domain = uniqueDomain();
    const r = await ws.api('POST', '/v1/companies', {
      name: '  Acme Corp ',
      domain: `HTTPS://www.${domain.toUpperCase()}:8443/about?x=1#top`,
      industry: 'Aerospace',
      size: 120,
      phone: '+442071838750',
      address: { city: 'London', planet: 'Earth' },
      tags: ['b2b', 'b2b'],
      owner_id: ownerId,
      custom_fields: { tier: 'gold', Tier: 'x' },
      external_id: 'crm-1',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: 'Acme Corp',
      domain,
      industry: 'Aerospace',
      size: 120,
      phone: '+442071838750',
      address: { street: null, city: 'London', state: null, zip: null, country: null },
      tags: ['b2b'],
      owner_id: ownerId,
      custom_fields: { tier: 'gold' },
      external_id: 'crm-1',
      version: 1,
    });
    expect(r.body.data.id).toMatch(/^com_/);
    expect(r.body.meta.warnings[0]).toMatch(/Tier/);
  });

  it('writes company.created with the record', async ({ app, ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const events = await app.db.prisma.event.findMany({ where: { entityId: c.id } });
    expect(events.map((e) => [e.type, e.entityType])).toEqual([['company.created', 'company']]);
    expect((events[0].data as { company: unknown }).company).toMatchObject({ id: c.id, name: 'Acme', version: 1 });
  });

  it.for<[string, Record<string, unknown>, string]>([
    ['missing name', { domain: 'a.example' }, 'name'],
    ['empty name', { name: '   ' }, 'name'],
    ['256-character name', { name: 'x'.repeat(256) }, 'name'],
    ['domain without a dot', { name: 'A', domain: 'localhost' }, 'domain'],
    ['domain with spaces', { name: 'A', domain: 'exa mple.com' }, 'domain'],
    ['domain with an e-mail', { name: 'A', domain: 'ceo@example.com' }, 'domain'],
    ['domain an IP address', { name: 'A', domain: '10.0.0.1' }, 'domain'],
    ['domain with a bad label', { name: 'A', domain: '-bad-.example.com' }, 'domain'],
    ['domain only a scheme', { name: 'A', domain: 'https://' }, 'domain'],
    ['size -1', { name: 'A', size: -1 }, 'size'],
    ['size 1.5', { name: 'A', size: 1.5 }, 'size'],
    ['size "10"', { name: 'A', size: '10' }, 'size'],
    ['phone not E.164', { name: 'A', phone: '555-1234' }, 'phone'],
    ['tags not a list', { name: 'A', tags: 'vip' }, 'tags'],
    ['custom field of the wrong type', { name: 'A', custom_fields: { founded: 'long ago' } }, 'custom_fields.founded'],
    ['custom select not an option', { name: 'A', custom_fields: { tier: 'bronze' } }, 'custom_fields.tier'],
    ['empty external_id', { name: 'A', external_id: '' }, 'external_id'],
  ])('400 for %s, naming the field', async ([, body, field], { ws }) => {
    const r = await ws.api('POST', '/v1/companies', body);
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(Object.keys(r.body.error.details)).toContain(field);
  });

  it('an unknown or inactive owner is 422', async ({ ws, other }) => {
    const foreignUser = (await other.addUser('Not Ours')).id;
    for (const owner_id of ['usr_nobody', foreignUser]) {
      const r = await ws.api('POST', '/v1/companies', newCompany({ owner_id }));
      expect(r.status).toBe(422);
      expect(r.body.error.details).toEqual({ owner_id: ['unknown or inactive user'] });
    }
  });

  it('a second company with the same domain, differently written, is 409 naming the first', async ({ ws }) => {
    const domain = uniqueDomain();
    const first = await created(ws.api, '/v1/companies', { name: 'First', domain });
    for (const again of [domain.toUpperCase(), `www.${domain}`, `http://${domain}/`, `${domain}.`]) {
      const r = await ws.api('POST', '/v1/companies', { name: 'Second', domain: again });
      expect(r.status, again).toBe(409);
      expect(r.body.error.code).toBe('conflict');
      expect(r.body.error.details).toMatchObject({ domain: ['is already taken'], existing_id: first.id });
    }
    // Another workspace may hold the same domain.
  });

  it('the same domain in another workspace is no conflict', async ({ ws, other }) => {
    const domain = uniqueDomain();
    await created(ws.api, '/v1/companies', { name: 'Ours', domain });
    await created(other.api, '/v1/companies', { name: 'Theirs', domain });
  });

  it('a duplicate external_id is 409 naming the holder', async ({ ws }) => {
    const first = await created(ws.api, '/v1/companies', newCompany({ external_id: 'dup-ext' }));
    const r = await ws.api('POST', '/v1/companies', newCompany({ external_id: ' dup-ext ' }));
    expect(r.status).toBe(409);
    expect(r.body.error.details).toMatchObject({ external_id: ['is already taken'], existing_id: first.id });
  });

  it('NUL bytes and huge strings are refused as 4xx, never stored', async ({ ws }) => {
    const cases: Record<string, unknown>[] = [
      { name: 'Nul\u0000Co' },
      { name: 'A', industry: 'x\u0000y' },
      { name: 'A', domain: 'nul\u0000.example.com' },
      { name: 'A', custom_fields: { tier: 'gold\u0000' } },
      { name: 'x'.repeat(100_000) },
      { name: 'A', domain: `${'a'.repeat(70)}.com` },
      { name: 'A', industry: 'y'.repeat(10_000) },
      { name: 'A', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
    ];
    for (const body of cases) {
      const r = await ws.api('POST', '/v1/companies', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(r.status, r.text.slice(0, 200)).toBeLessThan(500);
      expect(r.body.success).toBe(false);
    }
  });
});

describe('read, list, search', () => {
  it('gets one company; another workspace gets 404', async ({ ws, other }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const r = await ws.api('GET', `/v1/companies/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(c);
    const fields = await ws.api('GET', `/v1/companies/${c.id}?fields=name`);
    expect(fields.body.data).toEqual({ id: c.id, name: 'Acme' });
    expect((await other.api('GET', `/v1/companies/${c.id}`)).status).toBe(404);
    expect((await other.api('PUT', `/v1/companies/${c.id}`, { name: 'Mine' })).status).toBe(404);
    expect((await other.api('DELETE', `/v1/companies/${c.id}`)).status).toBe(404);
    expect((await other.api('GET', `/v1/companies/${c.id}/contacts`)).status).toBe(404);
    expect((await other.api('GET', `/v1/companies/${c.id}/deals`)).status).toBe(404);
    expect((await other.api('GET', `/v1/companies/${c.id}/timeline`)).status).toBe(404);
  });

  it('lists with filters, sorts and cursor pages', async ({ app }) => {
    const own = await app.workspace();
    const owner = (await own.addUser('Lister')).id;
    const tag = `t${Date.now().toString(36)}`;
    const domain = uniqueDomain('filter');
    const names = ['Delta', 'alpha', 'Charlie', 'Bravo'];
    for (const [i, name] of names.entries())
      await created(own.api, '/v1/companies', {
        name,
        industry: i % 2 ? 'Retail' : 'Software',
        tags: i < 2 ? [tag] : [],
        owner_id: i === 0 ? owner : null,
        ...(i === 3 ? { domain } : {}),
      });
    const list = async (q: string) => (await own.api('GET', `/v1/companies?${q}`)).body;
    expect((await list('')).data.map((c: { name: string }) => c.name)).toEqual([...names].reverse());
    expect((await list('sort=name')).data.map((c: { name: string }) => c.name)).toEqual([
      'Bravo',
      'Charlie',
      'Delta',
      'alpha',
    ]);
    expect((await list('industry=Retail')).data.map((c: { name: string }) => c.name).sort()).toEqual([
      'Bravo',
      'alpha',
    ]);
    expect((await list(`tags=${tag}`)).meta.total).toBe(2);
    expect((await list(`owner_id=${owner}`)).data.map((c: { name: string }) => c.name)).toEqual(['Delta']);
    expect((await list(`domain=WWW.${domain.toUpperCase()}`)).data.map((c: { name: string }) => c.name)).toEqual([
      'Bravo',
    ]);
    expect((await list('name=ha')).data.map((c: { name: string }) => c.name).sort()).toEqual(['Charlie', 'alpha']);
    expect((await list('created_after=2999-01-01')).data).toEqual([]);
    expect((await list('updated_after=2000-01-01')).meta.total).toBe(4);
    // Cursor paging through all of them, two at a time.
    const first = await list('limit=2&sort=name');
    expect(first.meta).toMatchObject({ total: 4, limit: 2, has_more: true });
    const second = await list(`limit=2&sort=name&cursor=${first.meta.next_cursor}`);
    expect(second.data.map((c: { name: string }) => c.name)).toEqual(['Delta', 'alpha']);
    expect(second.meta.has_more).toBe(false);
    expect((await own.api('GET', '/v1/companies?sort=size')).status).toBe(400);
    expect((await own.api('GET', '/v1/companies?created_after=yesterday')).status).toBe(400);
  });

  it('searches names, domains, industries and custom field values by prefix', async ({ ws }) => {
    const word = `zeta${Date.now().toString(36)}`;
    const c = await created(ws.api, '/v1/companies', {
      name: `${word} Industries`,
      domain: `${word}-labs.example`,
      industry: 'Biotech',
      custom_fields: { tier: 'silver' },
    });
    for (const q of [word.slice(0, 6), `${word} ind`, `${word}-labs`, 'labs']) {
      const r = await ws.api('GET', `/v1/companies/search?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect(
        r.body.data.map((x: { id: string }) => x.id),
        q,
      ).toContain(c.id);
    }
    // A change of a searched field is searched at once; other changes keep what was searchable.
    expect((await ws.api('PUT', `/v1/companies/${c.id}`, { size: 40, industry: 'Robotics' })).status).toBe(200);
    const found = async (q: string) =>
      (await ws.api('GET', `/v1/companies/search?q=${encodeURIComponent(q)}`)).body.data.map(
        (x: { id: string }) => x.id,
      );
    expect(await found('robotics')).toContain(c.id);
    expect(await found('biotech')).not.toContain(c.id);
    expect(await found(`${word}-labs`)).toContain(c.id);
    const none = await ws.api('GET', `/v1/companies/search?q=${word}nothing`);
    expect(none.body.data).toEqual([]);
    expect((await ws.api('GET', '/v1/companies/search?q=')).status).toBe(400);
  });
});

describe('update, delete', () => {
  it('a partial update changes only the given fields, raises the version and writes company.updated', async ({
    app,
    ws,
  }) => {
    const c = await created(ws.api, '/v1/companies', newCompany({ industry: 'Old', size: 5, tags: ['a'] }));
    const r = await ws.api('PUT', `/v1/companies/${c.id}`, {
      industry: 'New',
      size: null,
      custom_fields: { tier: 'silver' },
      address: { country: 'FR' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      name: 'Acme',
      domain: c.domain,
      industry: 'New',
      size: null,
      tags: ['a'],
      custom_fields: { tier: 'silver' },
      version: 2,
    });
    expect(r.body.data.address.country).toBe('FR');
    const events = await app.db.prisma.event.findMany({ where: { entityId: c.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['company.created', 'company.updated']);
    const data = events[1].data as { changes: string[]; previous: Record<string, unknown> };
    expect(data.changes.sort()).toEqual(['address', 'custom_fields', 'industry', 'size']);
    expect(data.previous).toMatchObject({ industry: 'Old', size: 5 });
    // Nothing changed: no event.
    expect((await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'New' })).status).toBe(200);
    expect(await app.db.prisma.event.count({ where: { entityId: c.id } })).toBe(2);
  });

  it('refuses a null name, a taken domain, a bad size', async ({ ws }) => {
    const a = await created(ws.api, '/v1/companies', newCompany());
    const b = await created(ws.api, '/v1/companies', newCompany());
    expect((await ws.api('PUT', `/v1/companies/${b.id}`, { name: null })).status).toBe(400);
    const taken = await ws.api('PUT', `/v1/companies/${b.id}`, { domain: `WWW.${a.domain}` });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.existing_id).toBe(a.id);
    expect((await ws.api('PUT', `/v1/companies/${b.id}`, { size: -1 })).status).toBe(400);
    // Its own domain again is no conflict.
    expect((await ws.api('PUT', `/v1/companies/${b.id}`, { domain: b.domain.toUpperCase() })).status).toBe(200);
  });

  it('delete unlinks contacts and deals and writes company.deleted', async ({ app, ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany({ name: 'Doomed' }));
    const contact = await created(ws.api, '/v1/contacts', {
      first_name: 'Linked',
      email: uniqueEmail(),
      company_id: c.id,
    });
    const deal = await created(ws.api, '/v1/deals', { title: 'D', pipeline_id: pipelineId, company_id: c.id });
    const r = await ws.api('DELETE', `/v1/companies/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: c.id, deleted: true });
    expect((await ws.api('GET', `/v1/companies/${c.id}`)).status).toBe(404);
    const after = (await ws.api('GET', `/v1/contacts/${contact.id}`)).body.data;
    expect(after).toMatchObject({ company_id: null, company: 'Doomed' });
    expect((await ws.api('GET', `/v1/deals/${deal.id}`)).body.data.company_id).toBeNull();
    expect(await app.db.prisma.event.count({ where: { entityId: c.id, type: 'company.deleted' } })).toBe(1);
    expect((await ws.api('DELETE', `/v1/companies/${c.id}`)).status).toBe(404);
  });
});

describe('contacts and deals linked to companies', () => {
  it('company_id on a contact sets its company text; a rename follows; null unlinks', async ({ app, ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany({ name: 'Initech' }));
    const contact = await created(ws.api, '/v1/contacts', {
      first_name: 'Peter',
      email: uniqueEmail(),
      company: 'Something else',
      company_id: c.id,
    });
    expect(contact).toMatchObject({ company_id: c.id, company: 'Initech' });
    const created2 = await app.db.prisma.event.findFirstOrThrow({ where: { entityId: contact.id } });
    expect((created2.data as { contact: unknown }).contact).toMatchObject({ company_id: c.id, company: 'Initech' });

    await ws.api('PUT', `/v1/companies/${c.id}`, { name: 'Initrode' });
    const renamed = (await ws.api('GET', `/v1/contacts/${contact.id}`)).body.data;
    expect(renamed.company).toBe('Initrode');
    expect(new Date(renamed.updated_at).getTime()).toBeGreaterThan(new Date(contact.updated_at).getTime());

    const unlinked = await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id: null });
    expect(unlinked.body.data).toMatchObject({ company_id: null, company: 'Initrode' });
    const relinked = await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id: c.id, company: 'ignored' });
    expect(relinked.body.data).toMatchObject({ company_id: c.id, company: 'Initrode' });
    // Linking shows on the contact's timeline, as contact.updated.
    const timeline = (await ws.api('GET', `/v1/contacts/${contact.id}/timeline`)).body.data;
    expect(timeline[0]).toMatchObject({ type: 'contact.updated', data: { changes: ['company_id'] } });
    expect(timeline[1].data.changes).toEqual(['company_id']);
  });

  it('links a contact to its company on update, reporting the company text as changed', async ({ app, ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany({ name: 'Hooli' }));
    const contact = await created(ws.api, '/v1/contacts', { first_name: 'Gavin', email: uniqueEmail() });
    const r = await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id: c.id });
    expect(r.body.data).toMatchObject({ company_id: c.id, company: 'Hooli' });
    const updated = await app.db.prisma.event.findFirstOrThrow({
      where: { entityId: contact.id, type: 'contact.updated' },
    });
    expect((updated.data as { changes: string[] }).changes.sort()).toEqual(['company', 'company_id']);
  });

  it('a company_id that names no company of the workspace is 422, for contacts and deals', async ({ ws, other }) => {
    const theirs = await created(other.api, '/v1/companies', newCompany());
    const contact = await created(ws.api, '/v1/contacts', { first_name: 'A', email: uniqueEmail() });
    const deal = await created(ws.api, '/v1/deals', { title: 'D', pipeline_id: pipelineId });
    for (const company_id of [theirs.id, 'com_missing']) {
      const answers = [
        await ws.api('POST', '/v1/contacts', { first_name: 'A', email: uniqueEmail(), company_id }),
        await ws.api('PUT', `/v1/contacts/${contact.id}`, { company_id }),
        await ws.api('POST', '/v1/deals', { title: 'D', pipeline_id: pipelineId, company_id }),
        await ws.api('PUT', `/v1/deals/${deal.id}`, { company_id }),
      ];
      for (const r of answers) {
        expect(r.status, r.text).toBe(422);
        expect(r.body.error.details).toEqual({ company_id: ['unknown company'] });
      }
    }
  });

  it('a deal takes company_id and reports its change in deal.updated', async ({ app, ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const deal = await created(ws.api, '/v1/deals', { title: 'Big one', pipeline_id: pipelineId, company_id: c.id });
    expect(deal.company_id).toBe(c.id);
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, { company_id: null });
    expect(r.body.data.company_id).toBeNull();
    const updated = await app.db.prisma.event.findFirstOrThrow({ where: { entityId: deal.id, type: 'deal.updated' } });
    expect((updated.data as { changes: string[] }).changes).toEqual(['company_id']);
  });

  it("lists a company's contacts and deals", async ({ ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const contacts = [];
    for (const first_name of ['One', 'Two', 'Three'])
      contacts.push(await created(ws.api, '/v1/contacts', { first_name, email: uniqueEmail(), company_id: c.id }));
    await created(ws.api, '/v1/contacts', { first_name: 'Elsewhere', email: uniqueEmail() });
    const deal = await created(ws.api, '/v1/deals', { title: 'D', pipeline_id: pipelineId, company_id: c.id });
    const page = await ws.api('GET', `/v1/companies/${c.id}/contacts?limit=2&sort=first_name`);
    expect(page.body.data.map((x: { first_name: string }) => x.first_name)).toEqual(['One', 'Three']);
    expect(page.body.meta).toMatchObject({ total: 3, has_more: true });
    const rest = await ws.api(
      'GET',
      `/v1/companies/${c.id}/contacts?limit=2&sort=first_name&cursor=${page.body.meta.next_cursor}`,
    );
    expect(rest.body.data.map((x: { first_name: string }) => x.first_name)).toEqual(['Two']);
    const deals = await ws.api('GET', `/v1/companies/${c.id}/deals`);
    expect(deals.body.data.map((x: { id: string }) => x.id)).toEqual([deal.id]);
    expect(deals.body.data[0].company_id).toBe(c.id);
  });
});

describe('merge', () => {
  it('moves contacts and deals to the primary, unions tags and custom fields, writes company.merged', async ({
    app,
    ws,
  }) => {
    const primary = await created(ws.api, '/v1/companies', {
      name: 'Primary',
      tags: ['a'],
      custom_fields: { tier: 'gold' },
    });
    const secondary = await created(ws.api, '/v1/companies', {
      name: 'Secondary',
      domain: uniqueDomain('sec'),
      industry: 'Retail',
      tags: ['b'],
      custom_fields: { tier: 'silver', founded: 1999 },
    });
    const contact = await created(ws.api, '/v1/contacts', {
      first_name: 'Moved',
      email: uniqueEmail(),
      company_id: secondary.id,
    });
    const deal = await created(ws.api, '/v1/deals', {
      title: 'Moved',
      pipeline_id: pipelineId,
      company_id: secondary.id,
    });
    const r = await ws.api('POST', '/v1/companies/merge', {
      primary_id: primary.id,
      secondary_id: secondary.id,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      id: primary.id,
      name: 'Primary',
      domain: secondary.domain,
      industry: 'Retail',
      tags: ['a', 'b'],
      custom_fields: { tier: 'gold', founded: 1999 },
    });
    expect((await ws.api('GET', `/v1/companies/${secondary.id}`)).status).toBe(404);
    // One write for the moved contact: its version is raised once.
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).body.data).toMatchObject({
      company_id: primary.id,
      company: 'Primary',
      version: contact.version + 1,
    });
    expect((await ws.api('GET', `/v1/deals/${deal.id}`)).body.data).toMatchObject({
      company_id: primary.id,
      version: deal.version + 1,
    });
    const merged = await app.db.prisma.event.findFirstOrThrow({
      where: { entityId: primary.id, type: 'company.merged' },
    });
    expect(merged.data).toMatchObject({
      merged_company: { id: secondary.id, name: 'Secondary' },
      merge_strategy: 'prefer_primary',
      moved_contacts: 1,
      moved_deals: 1,
    });
  });

  it('prefer_secondary lets the secondary win; bad merges are refused', async ({ ws, other }) => {
    const a = await created(ws.api, '/v1/companies', { name: 'A', industry: 'One' });
    const b = await created(ws.api, '/v1/companies', { name: 'B', industry: 'Two' });
    const r = await ws.api('POST', '/v1/companies/merge', {
      primary_id: a.id,
      secondary_id: b.id,
      merge_strategy: 'prefer_secondary',
    });
    expect(r.body.data).toMatchObject({ id: a.id, name: 'B', industry: 'Two' });
    const same = await ws.api('POST', '/v1/companies/merge', { primary_id: a.id, secondary_id: a.id });
    expect(same.status).toBe(422);
    const theirs = await created(other.api, '/v1/companies', newCompany());
    expect((await ws.api('POST', '/v1/companies/merge', { primary_id: a.id, secondary_id: theirs.id })).status).toBe(
      404,
    );
    const bad = await ws.api('POST', '/v1/companies/merge', {
      primary_id: a.id,
      secondary_id: 'x',
      merge_strategy: 'coin',
    });
    expect(bad.status).toBe(400);
  });
});

describe('timeline', () => {
  it("shows the company's events and those of its contacts and deals, newest first, paged", async ({ ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany({ name: 'Timely' }));
    const contact = await created(ws.api, '/v1/contacts', {
      first_name: 'Tim',
      email: uniqueEmail(),
      company_id: c.id,
    });
    await ws.api('POST', `/v1/contacts/${contact.id}/notes`, { content: 'Met at the fair' });
    const deal = await created(ws.api, '/v1/deals', { title: 'Timed', pipeline_id: pipelineId, company_id: c.id });
    await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'Clocks' });
    // Someone else's record is not on it.
    await created(ws.api, '/v1/contacts', { first_name: 'Unrelated', email: uniqueEmail() });
    const r = await ws.api('GET', `/v1/companies/${c.id}/timeline`);
    expect(r.status).toBe(200);
    const types = r.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(['company.updated', 'deal.created', 'note.created', 'contact.created', 'company.created']);
    expect(r.body.data[0]).toMatchObject({ summary: 'Updated industry', actor: { type: 'api_key' } });
    expect(r.body.data[1].data.deal.id).toBe(deal.id);
    const first = await ws.api('GET', `/v1/companies/${c.id}/timeline?limit=2`);
    expect(first.body.meta).toMatchObject({ total: 5, has_more: true });
    const next = await ws.api('GET', `/v1/companies/${c.id}/timeline?limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(next.body.data.map((e: { type: string }) => e.type)).toEqual(['note.created', 'contact.created']);
    const oldest = await ws.api('GET', `/v1/companies/${c.id}/timeline?sort=occurred_at&limit=1`);
    expect(oldest.body.data[0].type).toBe('company.created');
    // A cursor of another list is refused.
    expect(
      (await ws.api('GET', `/v1/contacts/${contact.id}/timeline?cursor=${first.body.meta.next_cursor}`)).status,
    ).toBe(400);
  });

  it('leaves out entries a custom key may not read', async ({ ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    await created(ws.api, '/v1/contacts', { first_name: 'Hidden', email: uniqueEmail(), company_id: c.id });
    const key = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    const r = await key.api('GET', `/v1/companies/${c.id}/timeline`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((e: { type: string }) => e.type)).toEqual(['company.created']);
  });
});

describe('auto-link by e-mail domain', () => {
  it('is off by default; full-access keys turn it on; new contacts then link to their domain', async ({ app }) => {
    const own = await app.workspace();
    const domain = uniqueDomain('auto');
    const company = await created(own.api, '/v1/companies', { name: 'Auto Co', domain });
    expect((await own.api('GET', '/v1/settings')).body.data).toEqual({ link_contacts_by_domain: false });
    const off = await created(own.api, '/v1/contacts', { first_name: 'Off', email: `off@${domain}` });
    expect(off.company_id).toBeNull();

    const readOnly = await own.addKey({ scope: 'read_only' });
    expect((await readOnly.api('GET', '/v1/settings')).status).toBe(200);
    expect((await readOnly.api('PUT', '/v1/settings', { link_contacts_by_domain: true })).status).toBe(403);
    const custom = await own.addKey({ scope: 'custom', permissions: ['contacts:write', 'companies:write'] });
    expect((await custom.api('PUT', '/v1/settings', { link_contacts_by_domain: true })).status).toBe(403);
    expect((await own.api('PUT', '/v1/settings', { link_contacts_by_domain: 'yes' })).status).toBe(400);
    const on = await own.api('PUT', '/v1/settings', { link_contacts_by_domain: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ link_contacts_by_domain: true });

    const linked = await created(own.api, '/v1/contacts', { first_name: 'On', email: `On@${domain.toUpperCase()}` });
    expect(linked).toMatchObject({ company_id: company.id, company: 'Auto Co' });
    // A key whose identity was cached before the change sees it too (same instance).
    const viaCustom = await created(custom.api, '/v1/contacts', { first_name: 'Custom', email: `c@${domain}` });
    expect(viaCustom.company_id).toBe(company.id);
    // An explicit null, a subdomain or another domain: no link.
    const optOut = await created(own.api, '/v1/contacts', { first_name: 'N', email: `n@${domain}`, company_id: null });
    expect(optOut.company_id).toBeNull();
    const sub = await created(own.api, '/v1/contacts', { first_name: 'S', email: `s@mail.${domain}` });
    expect(sub.company_id).toBeNull();
    // Bulk rows link too.
    const bulk = await own.api('POST', '/v1/contacts/bulk', {
      contacts: [{ first_name: 'B', email: `b@${domain}` }],
    });
    expect(bulk.body.data.contacts[0].company_id).toBe(company.id);

    const gqlOff = await gql(
      app.base,
      own.key,
      'mutation { updateWorkspaceSettings(input: { link_contacts_by_domain: false }) { link_contacts_by_domain } }',
    );
    expect(gqlOff.data.updateWorkspaceSettings).toEqual({ link_contacts_by_domain: false });
    const read = await gql(app.base, own.key, '{ workspaceSettings { link_contacts_by_domain } }');
    expect(read.data.workspaceSettings.link_contacts_by_domain).toBe(false);
    const after = await created(own.api, '/v1/contacts', { first_name: 'After', email: `after@${domain}` });
    expect(after.company_id).toBeNull();
  });
});

describe('GraphQL', () => {
  it('creates, reads with relations, updates, merges and deletes', async ({ app, ws }) => {
    const create = await gql(
      app.base,
      ws.key,
      `mutation($input: CompanyCreateInput!) { createCompany(input: $input) { id name domain size version } }`,
      { input: { name: 'Graph Co', domain: `https://${uniqueDomain('graph')}/`, size: 3 } },
    );
    expect(create.errors).toBeUndefined();
    const id = create.data.createCompany.id;
    expect(create.data.createCompany).toMatchObject({ name: 'Graph Co', size: 3, version: 1 });
    const contact = await created(ws.api, '/v1/contacts', { first_name: 'G', email: uniqueEmail(), company_id: id });
    await created(ws.api, '/v1/deals', { title: 'GD', pipeline_id: pipelineId, company_id: id, owner_id: ownerId });

    const read = await gql(
      app.base,
      ws.key,
      `query($id: ID!) {
        company(id: $id) {
          name owner { id } contacts { id company_id company_record { id } } deals { title company { id } }
        }
        companies(filter: { name: "graph co" }) { nodes { id } total }
        contact(id: "${contact.id}") { company_id company_record { name } }
      }`,
      { id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.company).toMatchObject({
      name: 'Graph Co',
      owner: null,
      contacts: [{ id: contact.id, company_id: id, company_record: { id } }],
      deals: [{ title: 'GD', company: { id } }],
    });
    expect(read.data.companies.nodes.map((c: { id: string }) => c.id)).toContain(id);
    expect(read.data.contact).toEqual({ company_id: id, company_record: { name: 'Graph Co' } });

    const update = await gql(
      app.base,
      ws.key,
      `mutation($id: ID!) { updateCompany(id: $id, input: { industry: "Maps" }) { industry version } }`,
      { id },
    );
    expect(update.data.updateCompany).toEqual({ industry: 'Maps', version: 2 });
    const bad = await gql(app.base, ws.key, `mutation { createCompany(input: { name: "X", size: -1 }) { id } }`);
    expect(bad.errors?.[0].extensions?.code).toBe('validation_error');
    expect(bad.errors?.[0].extensions?.details).toHaveProperty('size');

    const other = await created(ws.api, '/v1/companies', newCompany({ name: 'Absorbed' }));
    const merge = await gql(
      app.base,
      ws.key,
      `mutation($input: CompanyMergeInput!) { mergeCompanies(input: $input) { id } }`,
      { input: { primary_id: id, secondary_id: other.id } },
    );
    expect(merge.data.mergeCompanies.id).toBe(id);
    const timeline = await gql(
      app.base,
      ws.key,
      `query($id: ID!) { companyTimeline(companyId: $id) { nodes { type summary } total }
        companyContacts(companyId: $id) { total } companyDeals(companyId: $id) { total }
        searchCompanies(q: "graph") { nodes { id } } }`,
      { id },
    );
    expect(timeline.errors).toBeUndefined();
    expect(timeline.data.companyTimeline.nodes[0]).toEqual({ type: 'company.merged', summary: 'Merged with Absorbed' });
    expect(timeline.data.companyContacts.total).toBe(1);
    expect(timeline.data.companyDeals.total).toBe(1);
    const del = await gql(app.base, ws.key, `mutation($id: ID!) { deleteCompany(id: $id) { id deleted } }`, { id });
    expect(del.data.deleteCompany).toEqual({ id, deleted: true });
  });
});

describe('permissions', () => {
  it('companies:read and companies:write are custom permissions; without them 403', async ({ ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    for (const [method, path] of [
      ['GET', '/v1/companies'],
      ['GET', `/v1/companies/${c.id}`],
      ['GET', '/v1/companies/search?q=acme'],
      ['GET', `/v1/companies/${c.id}/timeline`],
      ['POST', '/v1/companies'],
      ['PUT', `/v1/companies/${c.id}`],
      ['DELETE', `/v1/companies/${c.id}`],
    ]) {
      const r = await contactsOnly.api(method, path, method === 'GET' ? undefined : newCompany());
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    // A company's contacts are contact data, its deals deal data.
    expect((await contactsOnly.api('GET', `/v1/companies/${c.id}/contacts`)).status).toBe(200);
    expect((await contactsOnly.api('GET', `/v1/companies/${c.id}/deals`)).status).toBe(403);

    const reader = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    expect((await reader.api('GET', `/v1/companies/${c.id}`)).status).toBe(200);
    expect((await reader.api('PUT', `/v1/companies/${c.id}`, { name: 'No' })).status).toBe(403);
    const writer = await ws.addKey({ scope: 'custom', permissions: ['companies:write'] });
    expect((await writer.api('PUT', `/v1/companies/${c.id}`, { name: 'Yes' })).status).toBe(200);
    const readOnly = await ws.addKey({ scope: 'read_only' });
    expect((await readOnly.api('GET', '/v1/companies')).status).toBe(200);
    expect((await readOnly.api('POST', '/v1/companies', newCompany())).status).toBe(403);
  });

  it("a contact's company_record is null for a key without companies:read, with a warning", async ({ ws }) => {
    const c = await created(ws.api, '/v1/companies', newCompany());
    const contact = await created(ws.api, '/v1/contacts', { first_name: 'W', email: uniqueEmail(), company_id: c.id });
    const key = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const viaKey = await key.api('POST', '/graphql', {
      query: `{ contact(id: "${contact.id}") { company_id company_record { id } } }`,
    });
    expect(viaKey.body.data.contact).toEqual({ company_id: c.id, company_record: null });
    expect(viaKey.body.errors[0].extensions.code).toBe('forbidden');
  });
});

describe('webhooks', () => {
  it('subscriptions accept company events, and a test send delivers a sample', async ({ ws, listen }) => {
    const hook = await listen();
    const r = await ws.api('POST', '/v1/webhooks', {
      url: hook.url,
      events: ['company.created', 'company.updated', 'company.deleted', 'company.merged'],
    });
    expect(r.status, r.text).toBe(201);
    const key = await ws.addKey({ scope: 'custom', permissions: ['webhooks:write'] });
    const refused = await key.api('POST', '/v1/webhooks', { url: hook.url, events: ['company.created'] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.events[0]).toMatch(/companies:read/);
  });
});

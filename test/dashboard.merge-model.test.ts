// The merge preview says what the service's merge does: for both strategies and contacts with and
// without values, its result column equals what mergeContacts (the mutation's own rule) computes.
import { describe, expect, it } from 'vitest';
import { type MergeContact, mergePreview, PICKED_FIELDS } from '../src/dashboard/pages/merge-model.ts';
import type { Contact } from '../src/db/generated/client/client.ts';
import { MERGED_FIELDS, mergeContacts, type MergeStrategy } from '../src/schema/contact/merge.rules.ts';

const contact = (over: Partial<MergeContact>): MergeContact => ({
  id: 'c',
  first_name: 'First',
  last_name: null,
  email: 'c@x.test',
  phone: null,
  company: null,
  job_title: null,
  status: 'lead',
  source: 'api',
  assigned_to: null,
  assigned_user: null,
  address: null,
  tags: [],
  custom_fields: {},
  engagement_score: 0,
  external_id: null,
  ...over,
});

const camel = (k: string) => k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** The contact as the database holds it: only the address parts that were given. */
function stored(c: MergeContact): Contact {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) row[camel(k)] = v;
  row.assignedToId = c.assigned_to;
  row.address = c.address ? Object.fromEntries(Object.entries(c.address).filter(([, v]) => v !== null)) : null;
  return row as unknown as Contact;
}

const primary = contact({
  id: 'p',
  first_name: 'Ada',
  email: 'ada@x.test',
  company: 'P Corp',
  status: 'customer',
  assigned_to: 'usr_p',
  assigned_user: { name: 'Pat' },
  tags: ['a'],
  custom_fields: { industry: 'p' },
  engagement_score: 3,
  external_id: 'ext-p',
  address: { street: null, city: null, state: null, zip: null, country: null },
});
const secondary = contact({
  id: 's',
  first_name: 'Augusta',
  last_name: 'King',
  email: 'augusta@x.test',
  phone: '+442071838750',
  company: 'S Corp',
  job_title: 'CTO',
  source: 'referral',
  tags: ['b', 'a'],
  custom_fields: { industry: 's', size: 5 },
  engagement_score: 9,
  address: { street: '1 Road', city: 'London', state: null, zip: null, country: 'GB' },
});

describe('the merge preview', () => {
  it('covers every field the service merges', () => {
    expect(PICKED_FIELDS.map(([k]) => (k === 'assigned_to' ? 'assignedToId' : camel(k)))).toEqual([...MERGED_FIELDS]);
  });

  for (const strategy of ['prefer_primary', 'prefer_secondary'] as MergeStrategy[]) {
    for (const [name, p, s] of [
      ['filled contacts', primary, secondary],
      ['swapped', secondary, primary],
      ['blank primary', contact({ id: 'p2', email: 'p2@x.test' }), secondary],
    ] as const) {
      it(`${strategy}, ${name}: the result is the service's`, () => {
        const server = mergeContacts(stored(p), stored(s), strategy);
        const rows = Object.fromEntries(mergePreview(p, s, strategy).rows.map((r) => [r.key, r]));
        const shown = (v: unknown) => {
          if (v === null || v === undefined || v === '') return '—';
          if (typeof v === 'object') return Object.values(v).join(', ') || '—';
          return String(v);
        };
        for (const [key] of PICKED_FIELDS) {
          if (key === 'assigned_to') continue;
          expect(rows[key].merged, key).toBe(shown(server[camel(key) as keyof typeof server]));
        }
        const owner = server.assignedToId === p.assigned_to ? p : s;
        expect(rows.assigned_to.merged).toBe(server.assignedToId ? owner.assigned_user?.name : '—');
        expect(rows.tags.merged).toBe(server.tags.join(', ') || '—');
        for (const [k, v] of Object.entries(server.customFields))
          expect(rows[`custom_fields.${k}`].merged).toBe(String(v));
        expect(rows.engagement_score.merged).toBe(String(server.engagementScore));
        expect(rows.email.merged).toBe(p.email);
      });
    }
  }

  it('marks the winning side, and refuses as the service would past 50 tags', () => {
    const preview = mergePreview(primary, secondary, 'prefer_primary');
    const from = Object.fromEntries(preview.rows.map((r) => [r.key, r.from]));
    expect(from).toMatchObject({
      first_name: 'primary',
      last_name: 'secondary',
      company: 'primary',
      address: 'secondary',
      tags: 'both',
      'custom_fields.industry': 'primary',
      'custom_fields.size': 'secondary',
      engagement_score: 'secondary',
      external_id: 'primary',
    });
    expect(
      Object.fromEntries(mergePreview(primary, secondary, 'prefer_secondary').rows.map((r) => [r.key, r.from])),
    ).toMatchObject({ first_name: 'secondary', status: 'secondary', assigned_to: 'primary' });
    expect(preview.refusal).toBeNull();
    const many = (prefix: string) => Array.from({ length: 30 }, (_, i) => `${prefix}${i}`);
    const refused = mergePreview(contact({ tags: many('p') }), contact({ tags: many('s') }), 'prefer_primary');
    expect(refused.refusal).toMatch(/60 tags/);
    expect(() =>
      mergeContacts(stored(contact({ tags: many('p') })), stored(contact({ tags: many('s') })), 'prefer_primary'),
    ).toThrow(/60 tags/);
  });
});

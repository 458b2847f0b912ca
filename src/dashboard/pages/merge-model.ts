// The merge preview: which value the surviving contact keeps, field by field, for a strategy. It
// follows the service's own merge rules (src/records/contact-merge.ts), on the contacts as the
// API answers them.
import {
  isBlank,
  MAX_TAGS,
  mergedCustomFields,
  mergedTags,
  mergedValue,
  mergeSides,
  type MergeStrategy,
} from '../../records/contact-merge.ts';

export type { MergeStrategy };

export interface MergeContact {
  id: string;
  first_name: string;
  last_name: string | null;
  email: string;
  phone: string | null;
  company: string | null;
  job_title: string | null;
  status: string;
  source: string;
  assigned_to: string | null;
  assigned_user?: { name: string } | null;
  address: Record<string, string | null> | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  engagement_score: number;
  external_id: string | null;
}

export const MERGE_CONTACT_FIELDS = `id first_name last_name email phone company job_title status source assigned_to
  assigned_user { name } address { street city state zip country } tags custom_fields engagement_score external_id`;

/** The fields whose preferred value wins unless it is blank (the service's MERGED_FIELDS). */
export const PICKED_FIELDS = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
  ['company', 'Company'],
  ['job_title', 'Job title'],
  ['status', 'Status'],
  ['source', 'Source'],
  ['assigned_to', 'Assigned to'],
  ['address', 'Address'],
] as const;

export type Side = 'primary' | 'secondary' | 'both' | 'none';

export interface PreviewRow {
  key: string;
  label: string;
  primary: string;
  secondary: string;
  merged: string;
  /** Whose value the merged contact keeps. */
  from: Side;
}

export interface MergePreview {
  rows: PreviewRow[];
  /** Set when the service would refuse the merge: more tags than a contact may hold. */
  refusal: string | null;
}

/** The address's given parts only: the API answers every part, null where none was stored. */
export function storedAddress(a: MergeContact['address']): Record<string, string> {
  return Object.fromEntries(Object.entries(a ?? {}).filter(([, v]) => v !== null && v !== '')) as Record<
    string,
    string
  >;
}

const show = (v: unknown): string => {
  if (isBlank(v)) return '—';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'object') return Object.values(v as object).join(', ');
  return String(v);
};

function sideOf(value: unknown, primary: unknown, secondary: unknown, first: 'primary' | 'secondary'): Side {
  if (isBlank(value)) return 'none';
  const same = (x: unknown) => JSON.stringify(x) === JSON.stringify(value);
  if (same(primary) && same(secondary)) return 'both';
  if (first === 'primary') return same(primary) ? 'primary' : 'secondary';
  return same(secondary) ? 'secondary' : 'primary';
}

/** The merged contact field by field, for `primary` surviving with `secondary` merged into it. */
export function mergePreview(primary: MergeContact, secondary: MergeContact, strategy: MergeStrategy): MergePreview {
  const first = strategy === 'prefer_secondary' ? 'secondary' : 'primary';
  const value = (c: MergeContact, key: (typeof PICKED_FIELDS)[number][0]): unknown =>
    key === 'address' ? storedAddress(c.address) : c[key];
  const userName = (c: MergeContact) => (c.assigned_to ? (c.assigned_user?.name ?? c.assigned_to) : null);
  const [win, fill] = mergeSides(primary, secondary, strategy);
  const rows: PreviewRow[] = [
    {
      key: 'email',
      label: 'Email',
      primary: primary.email,
      secondary: secondary.email,
      merged: primary.email,
      from: primary.email === secondary.email ? 'both' : 'primary',
    },
  ];
  for (const [key, label] of PICKED_FIELDS) {
    const merged = mergedValue(value(win, key), value(fill, key));
    const p = value(primary, key);
    const s = value(secondary, key);
    const from = sideOf(merged, p, s, first);
    const named = (c: MergeContact, v: unknown) => (key === 'assigned_to' ? (userName(c) ?? '—') : show(v));
    rows.push({
      key,
      label,
      primary: named(primary, p),
      secondary: named(secondary, s),
      merged: from === 'secondary' ? named(secondary, merged) : named(primary, merged),
      from,
    });
  }
  const tags = mergedTags(win.tags, fill.tags);
  rows.push({
    key: 'tags',
    label: 'Tags',
    primary: show(primary.tags),
    secondary: show(secondary.tags),
    merged: show(tags),
    from: tags.length === 0 ? 'none' : 'both',
  });
  const custom = mergedCustomFields(win.custom_fields, fill.custom_fields);
  for (const key of Object.keys(custom).sort()) {
    const p = primary.custom_fields?.[key];
    const s = secondary.custom_fields?.[key];
    rows.push({
      key: `custom_fields.${key}`,
      label: key,
      primary: show(p),
      secondary: show(s),
      merged: show(custom[key]),
      from: sideOf(custom[key], p, s, first),
    });
  }
  const score = Math.max(primary.engagement_score, secondary.engagement_score);
  rows.push({
    key: 'engagement_score',
    label: 'Engagement score',
    primary: String(primary.engagement_score),
    secondary: String(secondary.engagement_score),
    merged: String(score),
    from:
      primary.engagement_score === secondary.engagement_score
        ? 'both'
        : score === primary.engagement_score
          ? 'primary'
          : 'secondary',
  });
  rows.push({
    key: 'external_id',
    label: 'External id',
    primary: show(primary.external_id),
    secondary: show(secondary.external_id),
    merged: show(primary.external_id),
    from: isBlank(primary.external_id) ? 'none' : 'primary',
  });
  const refusal =
    tags.length > MAX_TAGS
      ? `The merged contact would have ${tags.length} tags and a contact has at most ${MAX_TAGS}: remove some first.`
      : null;
  return { rows, refusal };
}

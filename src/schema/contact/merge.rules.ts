// How two contacts become one. Pure: the mutation loads both, calls this, then writes.
import type { Contact } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';

export type MergeStrategy = 'prefer_primary' | 'prefer_secondary';

/** The per-record cap on tags (as in every contact body): a merge that would pass it is refused, not cut. */
export const MAX_TAGS = 50;

const MERGED_FIELDS = [
  'firstName',
  'lastName',
  'phone',
  'company',
  'jobTitle',
  'status',
  'source',
  'assignedToId',
  'address',
] as const;

const isBlank = (v: unknown) =>
  v === null || v === undefined || v === '' || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

export interface MergedContact {
  firstName: string;
  lastName: string | null;
  phone: string | null;
  company: string | null;
  jobTitle: string | null;
  status: string;
  source: string;
  assignedToId: string | null;
  address: unknown;
  tags: string[];
  customFields: Record<string, unknown>;
  engagementScore: number;
}

/**
 * The preferred contact's non-empty fields win and the other fills the blanks; tags and
 * custom fields are unioned (the preferred side wins a key present in both). The email is
 * always the primary's: the primary is the record that survives.
 */
export function mergeContacts(primary: Contact, secondary: Contact, strategy: MergeStrategy): MergedContact {
  const [win, fill] = strategy === 'prefer_secondary' ? [secondary, primary] : [primary, secondary];
  const pick = <K extends (typeof MERGED_FIELDS)[number]>(k: K): Contact[K] => (isBlank(win[k]) ? fill[k] : win[k]);
  const tags = [...new Set([...win.tags, ...fill.tags])];
  if (tags.length > MAX_TAGS) {
    throw new AppError(
      'unprocessable_entity',
      `The merged contact would have ${tags.length} tags and a record has at most ${MAX_TAGS}; remove some first`,
    );
  }
  return {
    firstName: pick('firstName'),
    lastName: pick('lastName'),
    phone: pick('phone'),
    company: pick('company'),
    jobTitle: pick('jobTitle'),
    status: pick('status'),
    source: pick('source'),
    assignedToId: pick('assignedToId'),
    address: pick('address'),
    tags,
    customFields: {
      ...(fill.customFields as Record<string, unknown>),
      ...(win.customFields as Record<string, unknown>),
    },
    engagementScore: Math.max(primary.engagementScore, secondary.engagementScore),
  };
}

/** Tags present in `after` but not `before`, and the reverse. */
export function tagChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  return { added: after.filter((t) => !before.includes(t)), removed: before.filter((t) => !after.includes(t)) };
}

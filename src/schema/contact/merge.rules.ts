// How two contacts become one. Pure: the mutation loads both, calls this, then writes.
import type { Contact } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';
import {
  MAX_TAGS,
  mergedCustomFields,
  mergedTags,
  mergedValue,
  mergeSides,
  type MergeStrategy,
} from '../../records/contact-merge.ts';

export type { MergeStrategy };

export { MAX_TAGS };

export const MERGED_FIELDS = [
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
  const [win, fill] = mergeSides(primary, secondary, strategy);
  const pick = <K extends (typeof MERGED_FIELDS)[number]>(k: K): Contact[K] => mergedValue(win[k], fill[k]);
  const tags = mergedTags(win.tags, fill.tags);
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
    customFields: mergedCustomFields(win.customFields, fill.customFields),
    engagementScore: Math.max(primary.engagementScore, secondary.engagementScore),
  };
}

/** Tags present in `after` but not `before`, and the reverse. */
export function tagChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  return { added: after.filter((t) => !before.includes(t)), removed: before.filter((t) => !after.includes(t)) };
}

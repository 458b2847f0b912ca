// A contact on the wire: its statuses, sources and merge strategies, and the snake_case record events
// and webhook payloads carry. Below the GraphQL schema, so the event catalogue can use it without loading it.
import type { Contact, Prisma } from '../db/generated/client/client.ts';

export const CONTACT_STATUSES = ['active', 'inactive', 'lead', 'customer', 'churned'] as const;
export const CONTACT_SOURCES = ['website', 'referral', 'social', 'paid_ads', 'manual', 'api', 'import'] as const;
export const MERGE_STRATEGIES = ['prefer_primary', 'prefer_secondary'] as const;

const ADDRESS_PARTS = ['street', 'city', 'state', 'zip', 'country'] as const;
export type Address = Record<(typeof ADDRESS_PARTS)[number], string | null>;

/** The stored address (only the parts that were given), with every part: null where none was. */
export function addressOf(stored: unknown): Address | null {
  if (!stored || typeof stored !== 'object') return null;
  const parts = stored as Record<string, unknown>;
  return Object.fromEntries(ADDRESS_PARTS.map((k) => [k, typeof parts[k] === 'string' ? parts[k] : null])) as Address;
}

export function contactRecord(c: Contact) {
  return {
    id: c.id,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phone,
    company: c.company,
    company_id: c.companyId,
    job_title: c.jobTitle,
    status: c.status,
    source: c.source,
    tags: c.tags,
    assigned_to: c.assignedToId,
    engagement_score: c.engagementScore,
    custom_fields: c.customFields as Prisma.InputJsonObject,
    // Every part, as the API answers it.
    address: addressOf(c.address),
    external_id: c.externalId,
    version: c.version,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

// The snake_case record of a contact, as events and webhook payloads carry it.
import type { Contact, Prisma } from '../../db/generated/client/client.ts';

export function contactRecord(c: Contact) {
  return {
    id: c.id,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phone,
    company: c.company,
    job_title: c.jobTitle,
    status: c.status,
    source: c.source,
    tags: c.tags,
    assigned_to: c.assignedToId,
    engagement_score: c.engagementScore,
    custom_fields: c.customFields as Prisma.InputJsonObject,
    address: c.address as Prisma.InputJsonObject | null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

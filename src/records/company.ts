// A company on the wire: the snake_case record events and webhook payloads carry. Below the
// GraphQL schema, so the event catalogue can use it without loading it.
import type { Company, Prisma } from '../db/generated/client/client.ts';
import { addressOf } from './contact.ts';

export function companyRecord(c: Company) {
  return {
    id: c.id,
    name: c.name,
    domain: c.domain,
    industry: c.industry,
    size: c.size,
    phone: c.phone,
    // Every part, as the API answers it.
    address: addressOf(c.address),
    tags: c.tags,
    owner_id: c.ownerId,
    custom_fields: c.customFields as Prisma.InputJsonObject,
    external_id: c.externalId,
    version: c.version,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

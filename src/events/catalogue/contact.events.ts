// Contact events. `data.contact` is the contact after the change (before it, for a deletion).
import { z } from 'zod';
import type { Contact } from '../../db/generated/client/client.ts';
import { CONTACT_STATUSES, MERGE_STRATEGIES } from '../../records/contact.ts';
import { contactRecord } from '../../records/contact.ts';
import { defineEvent } from './define.ts';
import { changedFields, ContactRecordSchema, previousValues } from './records.ts';
import { sampleContact } from './samples.ts';

type ContactFields = ReturnType<typeof contactRecord>;
type ContactField = keyof ContactFields;

const contactOnly = z.object({ contact: ContactRecordSchema });

export const contactCreated = defineEvent({
  name: 'contact.created',
  entityType: 'contact',
  description: 'A contact was created (one per row of a bulk create).',
  data: contactOnly,
  build: (contact: Contact) => ({ contact: contactRecord(contact) }),
  sampleInput: () => sampleContact(),
});

export const contactUpdated = defineEvent({
  name: 'contact.updated',
  entityType: 'contact',
  description: 'Fields of a contact changed; `changes` names them and `previous` holds their values before.',
  data: z.object({
    contact: ContactRecordSchema,
    changes: changedFields(ContactRecordSchema),
    previous: previousValues(ContactRecordSchema),
  }),
  build: ({ contact, before, changes }: { contact: Contact; before: Contact; changes: ContactField[] }) => {
    const was = contactRecord(before);
    return {
      contact: contactRecord(contact),
      changes,
      previous: Object.fromEntries(changes.map((f) => [f, was[f] ?? null])),
    };
  },
  sampleInput: () => ({
    contact: sampleContact({ status: 'customer', tags: ['sample', 'vip'] }),
    before: sampleContact(),
    changes: ['status', 'tags'] as ContactField[],
  }),
});

export const contactStatusChanged = defineEvent({
  name: 'contact.status_changed',
  entityType: 'contact',
  description: "A contact's status changed (written with its contact.updated).",
  data: z.object({
    contact: ContactRecordSchema,
    previous_status: z.enum(CONTACT_STATUSES),
    status: z.enum(CONTACT_STATUSES),
  }),
  build: ({ contact, previousStatus }: { contact: Contact; previousStatus: string }) => ({
    contact: contactRecord(contact),
    previous_status: previousStatus,
    status: contact.status,
  }),
  sampleInput: () => ({ contact: sampleContact({ status: 'customer' }), previousStatus: 'lead' }),
});

const tagEvent = (
  name: 'contact.tag_added' | 'contact.tag_removed',
  description: string,
  sample: () => { contact: Contact; tags: string[] },
) =>
  defineEvent({
    name,
    entityType: 'contact',
    description,
    data: z.object({
      contact: ContactRecordSchema,
      tags: z
        .array(z.string())
        .min(1)
        .describe(name === 'contact.tag_added' ? 'The tags added' : 'The tags removed'),
    }),
    build: ({ contact, tags }: { contact: Contact; tags: string[] }) => ({ contact: contactRecord(contact), tags }),
    sampleInput: sample,
  });

export const contactTagAdded = tagEvent(
  'contact.tag_added',
  'Tags were added to a contact (written with its contact.updated).',
  () => ({
    contact: sampleContact({ tags: ['sample', 'vip'] }),
    tags: ['vip'],
  }),
);

export const contactTagRemoved = tagEvent(
  'contact.tag_removed',
  'Tags were removed from a contact (written with its contact.updated).',
  () => ({
    contact: sampleContact({ tags: [] }),
    tags: ['sample'],
  }),
);

export const contactDeleted = defineEvent({
  name: 'contact.deleted',
  entityType: 'contact',
  description: 'A contact was deleted; `data.contact` is the contact as it was.',
  data: contactOnly,
  build: (contact: Contact) => ({ contact: contactRecord(contact) }),
  sampleInput: () => sampleContact(),
});

export const contactMerged = defineEvent({
  name: 'contact.merged',
  entityType: 'contact',
  description:
    'A contact was merged into another: `contact` is the primary after the merge, ' +
    '`merged_contact` the secondary as it was before it was deleted.',
  data: z.object({
    contact: ContactRecordSchema,
    merged_contact: ContactRecordSchema.describe('The secondary contact as it was; it no longer exists'),
    merge_strategy: z.enum(MERGE_STRATEGIES),
  }),
  build: ({
    contact,
    merged,
    strategy,
  }: {
    contact: Contact;
    merged: Contact;
    strategy: (typeof MERGE_STRATEGIES)[number];
  }) => ({
    contact: contactRecord(contact),
    merged_contact: contactRecord(merged),
    merge_strategy: strategy,
  }),
  sampleInput: () => ({
    contact: sampleContact({ tags: ['sample', 'imported'] }),
    merged: sampleContact({ id: 'con_sample_duplicate', email: 'sample.duplicate@example.com', tags: ['imported'] }),
    strategy: 'prefer_primary' as const,
  }),
});

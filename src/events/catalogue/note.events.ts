// Note events: written for timelines only (a contact's, or a company's), never delivered.
import { z } from 'zod';
import type { Note } from '../../db/generated/client/client.ts';
import { defineEvent } from './define.ts';
import { NoteRecordSchema } from './records.ts';
import { sampleNote } from './samples.ts';

export const noteCreated = defineEvent({
  name: 'note.created',
  entityType: 'note',
  description: 'A note was added to a contact or a company (their timelines only).',
  timelineOnly: true,
  data: z.object({ note: NoteRecordSchema }),
  build: (note: Note) => ({
    note: {
      id: note.id,
      contact_id: note.contactId,
      company_id: note.companyId,
      content: note.content,
      version: note.version,
      created_at: note.createdAt.toISOString(),
    },
  }),
  sampleInput: () => sampleNote(),
});

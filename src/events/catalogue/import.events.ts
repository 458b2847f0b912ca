// Import events: one when a job is over, completed or failed (`data.import.status` says which).
import { z } from 'zod';
import type { Import } from '../../db/generated/client/client.ts';
import { importRecord } from '../../records/import.ts';
import { defineEvent } from './define.ts';
import { ImportRecordSchema } from './records.ts';
import { sampleImport } from './samples.ts';

export const importCompleted = defineEvent({
  name: 'import.completed',
  entityType: 'import',
  description:
    'An import job is over: `status` is completed (every row was read; rows_failed counts those not imported) ' +
    'or failed (it stopped: `error` says why; the rows before stay imported).',
  data: z.object({ import: ImportRecordSchema }),
  build: (i: Import) => ({ import: importRecord(i) }),
  sampleInput: () => sampleImport(),
});

// createImport: the file POST /v1/imports received, queued for the workers with its settings.
import { builder } from '../builder.ts';
import { zodInput } from '../common/zod-input.ts';
import { createImport } from './import.create.ts';
import { createImportInput } from './import.inputs.ts';
import { ImportType } from './import.type.ts';

const CreateImportInput = zodInput(
  'CreateImportInput',
  createImportInput,
  'The settings of an import of a file already received (POST /v1/imports sends the file and these in one request).',
);

builder.mutationField('createImport', (t) =>
  t.field({
    type: ImportType,
    description:
      'Queues the import of an upload POST /v1/imports received. The mapping and the upsert key are checked ' +
      'against the file at once (400); rows are checked as the job reads them. Needs write access to the resource.',
    args: { input: t.arg({ type: CreateImportInput, required: true }) },
    resolve: (_root, { input }, ctx) => createImport(ctx, input),
  }),
);

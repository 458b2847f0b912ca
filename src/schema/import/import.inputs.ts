// The settings of an import (POST /v1/imports' form fields, createImport's input).
import { z } from 'zod';
import { IMPORT_FORMATS, IMPORT_MODES, IMPORT_RESOURCES, UPSERT_KEYS } from '../../records/import.ts';
import { scalarNamed } from '../common/graphql-names.ts';

export const importMapping = scalarNamed(
  z
    .record(z.string().min(1).max(255), z.string().max(255).nullable())
    .refine((m) => Object.keys(m).length <= 1000, 'must name at most 1000 columns'),
  'ImportMapping',
);

export const importSettings = z.object({
  resource: z.enum(IMPORT_RESOURCES),
  format: z.enum(IMPORT_FORMATS).default('csv'),
  mode: z.enum(IMPORT_MODES).default('create'),
  upsert_by: z
    .enum([...new Set(Object.values(UPSERT_KEYS).flat())] as [string, ...string[]])
    .optional()
    .meta({ description: 'Required with mode upsert: email (contacts), domain (companies) or external_id' }),
  mapping: importMapping.optional().meta({
    description:
      'Column → field. Without it, every column named like a field fills that field (JSON Lines: each line as it is).',
  }),
});

export const createImportInput = importSettings.extend({
  upload_id: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: 'The file as POST /v1/imports received it; an upload starts one import only' }),
  filename: z.string().max(255).optional(),
});
export type CreateImportInput = z.output<typeof createImportInput>;

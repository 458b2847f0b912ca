// graphql-codegen's client preset: typed documents for the operations written in graphql-client.ts,
// from the schema of a running service (introspection needs a key, like every /graphql request).
import type { CodegenConfig } from '@graphql-codegen/cli';

const url = process.env.CRM_URL ?? 'http://127.0.0.1:3000';
const key = process.env.CRM_KEY;
if (!key) throw new Error('Set CRM_KEY to an API key');

const config: CodegenConfig = {
  schema: { [`${url}/graphql`]: { headers: { Authorization: `Bearer ${key}` } } },
  documents: ['graphql-client.ts'],
  ignoreNoDocuments: false,
  generates: {
    'generated/graphql/': {
      preset: 'client',
      config: {
        // Enum values are the wire strings ('lead'), as on REST.
        enumsAsTypes: true,
        useTypeImports: true,
        // The schema's own scalars: ISO date-times, and JSON objects whose keys depend on the record.
        scalars: {
          DateTime: 'string',
          AuditChanges: 'Record<string, unknown>',
          CustomFieldConditions: 'Record<string, unknown>',
          CustomFieldValues: 'Record<string, unknown>',
          ErrorDetails: 'Record<string, unknown>',
          EventData: 'Record<string, unknown>',
          ImportMapping: 'Record<string, string>',
          WebhookFilters: 'Record<string, unknown>',
          WebhookHeaders: 'Record<string, string>',
        },
      },
    },
  },
};

export default config;

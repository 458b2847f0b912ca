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
        scalars: { DateTime: 'string', JSON: 'unknown', JSONObject: 'Record<string, unknown>' },
      },
    },
  },
};

export default config;

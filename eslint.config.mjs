// ESLint runs only the GraphQL schema linter, over the checked-in schema (contract/schema.graphql,
// written by `npm run contract`): `npm run lint:graphql`. The schema file is the only input; no
// endpoint or remote schema is loaded.
import graphql from '@graphql-eslint/eslint-plugin';

const recommended = graphql.configs['flat/schema-recommended'].rules;
// Its naming rules, less the one style for every field and argument (replaced below).
const {
  FieldDefinition: _field,
  InputValueDefinition: _input,
  Argument: _argument,
  ...namingDefaults
} = recommended['@graphql-eslint/naming-convention'][1];
const ROOT = /^(Query|Mutation|Subscription)$/.source;

export default [
  {
    files: ['contract/schema.graphql'],
    languageOptions: {
      parser: graphql.parser,
      parserOptions: { graphQLConfig: { schema: 'contract/schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...recommended,
      '@graphql-eslint/naming-convention': [
        'error',
        {
          ...namingDefaults,
          // Fields and input fields are the REST API's wire names (`first_name`), one vocabulary for
          // both APIs; root fields and their arguments are GraphQL's own (`createContact(contactId:)`).
          [`FieldDefinition[parent.name.value!=/${ROOT}/]`]: 'snake_case',
          [`FieldDefinition[parent.name.value=/${ROOT}/]`]: 'camelCase',
          // expected_version keeps the wire name the issue gives it, as REST's If-Match maps to it.
          'InputValueDefinition[parent.kind=FieldDefinition]': {
            style: 'camelCase',
            ignorePattern: '^expected_version$',
          },
          'InputValueDefinition[parent.kind=InputObjectTypeDefinition]': 'snake_case',
          // Enum values are the wire values too (`paid_ads`), and HTTP methods are written as HTTP writes them.
          EnumValueDefinition: { style: 'snake_case', ignorePattern: '^(GET|HEAD|POST|PUT|PATCH|DELETE)$' },
        },
      ],
      // Most object types are values without an identity of their own (pages, bulk results,
      // addresses, changes, delivery attempts): the rule would need an exception for each.
      '@graphql-eslint/strict-id-in-types': 'off',
    },
  },
];

// What a file's columns may fill, per resource: the dashboard's import page offers these in its
// column mapping. The same list createImport checks a mapping against (imports/import-fields.ts),
// with the workspace's custom fields. Signed-in users only, like the custom field definitions.
import { importFields } from '../../imports/import-fields.ts';
import { IMPORT_RESOURCES, type ImportResource as Resource } from '../../records/import.ts';
import { builder } from '../builder.ts';
import { ImportResource } from '../common/enums.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';

const ImportFieldSet = builder.objectRef<{ resource: Resource; fields: string[] }>('ImportFieldSet').implement({
  description: 'The fields a column of an import of one resource may fill',
  fields: (t) => ({
    resource: t.field({ type: ImportResource, resolve: (s) => s.resource }),
    fields: t.exposeStringList('fields', {
      description: 'Field names as a mapping takes them: `email`, `address.city`, `custom_fields.<key>`',
    }),
  }),
});

builder.queryField('importFields', (t) =>
  t.field({
    type: [ImportFieldSet],
    description: 'What the columns of an import may fill, for each resource. Signed-in users only.',
    resolve: async (_root, _args, ctx) => {
      assertSignedInUser(ctx);
      const defs = await definitionsLoader(ctx).load(ctx.caller.accountId);
      return IMPORT_RESOURCES.map((resource) => ({ resource, fields: [...importFields(resource, defs).keys()] }));
    },
  }),
);

import { builder } from '../builder.ts';

export const CustomFieldType = builder.prismaObject('CustomFieldDefinition', {
  name: 'CustomField',
  description: 'A custom field the workspace defines for contacts and deals (both environments).',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    label: t.exposeString('label', { nullable: true }),
    type: t.exposeString('type', { description: 'text, number, boolean, date or select' }),
    options: t.exposeStringList('options', { description: 'The choices of a select field' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

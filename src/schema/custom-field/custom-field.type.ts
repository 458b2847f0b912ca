import { builder } from '../builder.ts';
import { CustomFieldType as CustomFieldKind } from '../common/enums.ts';
import { storedEnum } from '../common/stored-enum.ts';

export const CustomFieldType = builder.prismaObject('CustomFieldDefinition', {
  name: 'CustomField',
  description: 'A custom field the workspace defines for contacts and deals (both environments).',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key', { description: 'The key its values have in custom_fields' }),
    label: t.exposeString('label', { nullable: true, description: 'A name for people; null when not given' }),
    type: t.expose('type', { type: storedEnum(CustomFieldKind) }),
    options: t.exposeStringList('options', { description: 'The choices of a select field' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

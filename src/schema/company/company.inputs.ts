// Company request shapes: the same snake_case fields on REST bodies and GraphQL `input` objects.
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { csvList, customFieldValues, isoDateOrTime, name255, tagList } from '../common/validation.ts';
import { MERGE_STRATEGIES } from '../../records/contact.ts';
import { address, phone } from '../contact/contact.inputs.ts';
import { externalId } from '../common/external-id.ts';

const MAX_INT4 = 2_147_483_647;

/**
 * A company's domain as stored: lower case, without scheme, user, `www.`, port, path, query or
 * trailing dot, international names in their ASCII (punycode) form; null when what is left is not
 * a host name of at least two labels (letters, digits and inner hyphens, at most 63 each).
 */
export function normaliseDomain(given: string): string | null {
  let host = given.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  host = host.split(/[/?#]/, 1)[0];
  if (host.includes('@')) return null;
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  host = host.replace(/^www\./, '');
  if (!host || host.length > 253) return null;
  const ascii = /^[\x21-\x7e]*$/.test(host) ? host : domainToASCII(host);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2) return null;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (!labels.every((l) => label.test(l))) return null;
  // A top-level domain is letters (or punycode), never all digits: 10.0.0.1 is no company's domain.
  if (!/^([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(labels[labels.length - 1])) return null;
  return ascii;
}

const domain = z
  .string()
  .max(255, 'must be at most 255 characters')
  .transform(
    (s, ctx) =>
      normaliseDomain(s) ??
      (ctx.addIssue({ code: 'custom', message: 'must be a domain name such as example.com' }), z.NEVER),
  )
  .meta({
    description:
      'Host name such as example.com; stored in lower case without scheme, www., port or path. ' +
      'Unique in the workspace.',
  });

const size = z
  .number('must be a JSON number')
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(MAX_INT4, `must be at most ${MAX_INT4}`)
  .meta({ description: 'Number of employees' });

const companyFields = {
  name: name255.min(1, 'is required'),
  domain: domain.nullable().optional(),
  industry: name255.nullable().optional(),
  size: size.nullable().optional(),
  phone: phone.nullable().optional(),
  address: address.nullable().optional(),
  tags: tagList.optional(),
  owner_id: z.string().nullable().optional(),
  custom_fields: customFieldValues.optional(),
  external_id: externalId.nullable().optional(),
};

// z.object strips unknown and read-only keys (id, version, created_at, ...): never stored.
export const companyCreateInput = z.object(companyFields);
export const companyUpdateInput = z.object(companyFields).partial();
export type CompanyCreateInput = z.output<typeof companyCreateInput>;
export type CompanyUpdateInput = z.output<typeof companyUpdateInput>;

export const companyMergeInput = z.object({
  primary_id: z.string().min(1),
  secondary_id: z.string().min(1),
  merge_strategy: z.enum(MERGE_STRATEGIES).default('prefer_primary'),
});

export const companyFilter = z
  .object({
    name: z.string().max(255).optional().meta({ description: 'Part of the name, any case' }),
    domain: z.string().max(255).optional().meta({ description: 'The domain, in any of the forms a body takes' }),
    industry: z.string().max(255).optional(),
    owner_id: z.string().optional(),
    tags: csvList.optional(),
    created_after: isoDateOrTime.optional(),
    created_before: isoDateOrTime.optional(),
    updated_after: isoDateOrTime.optional(),
  })
  .strip();

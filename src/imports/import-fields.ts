// What a file's columns may be imported into, and how a CSV cell becomes a field's value. The
// fields are the create input's own (a change there reaches imports without a list to keep), one
// level into objects (`address.city`), and custom fields as `custom_fields.<key>`. A cell is text:
// numbers, true/false and lists (`tags`, comma-separated) are read from it by the field's type;
// an empty cell sets nothing. JSON Lines values are taken as they are.
import type { z } from 'zod';
import { companyCreateInput } from '../schema/company/company.inputs.ts';
import { contactCreateInput } from '../schema/contact/contact.inputs.ts';
import type { ImportResource } from '../records/import.ts';
import type { CustomFieldDef } from '../schema/custom-field/custom-field.rules.ts';
import { dealCreateInput } from '../schema/deal/deal.inputs.ts';

const CREATE_INPUTS: Record<ImportResource, z.ZodObject> = {
  contacts: contactCreateInput,
  companies: companyCreateInput,
  deals: dealCreateInput,
};

type Kind = 'text' | 'number' | 'boolean' | 'list' | 'object' | 'custom';

/** The kind of value a schema takes, through its optional, nullable, default and pipe wrappers. */
function kindOf(schema: z.core.$ZodType): Kind {
  const def = schema._zod.def as unknown as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return kindOf(def.innerType!);
    case 'pipe':
      return kindOf(def.in!);
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'list';
    case 'object':
      return 'object';
    default:
      return 'text';
  }
}

function objectShape(schema: z.core.$ZodType): Record<string, z.core.$ZodType> | null {
  const def = schema._zod.def as unknown as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
  if (def.type === 'object') return (schema as z.ZodObject).shape;
  if (def.innerType) return objectShape(def.innerType);
  if (def.in) return objectShape(def.in);
  return null;
}

/** Every field a column may fill, with the kind of its value: `email`, `address.city`, `custom_fields.tier`. */
export function importFields(resource: ImportResource, defs: CustomFieldDef[]): Map<string, Kind | CustomFieldDef> {
  const fields = new Map<string, Kind | CustomFieldDef>();
  for (const [name, schema] of Object.entries(CREATE_INPUTS[resource].shape)) {
    if (name === 'custom_fields') continue;
    const kind = kindOf(schema);
    const nested = kind === 'object' ? objectShape(schema) : null;
    if (nested) for (const [inner, s] of Object.entries(nested)) fields.set(`${name}.${inner}`, kindOf(s));
    else fields.set(name, kind);
  }
  for (const def of defs) fields.set(`custom_fields.${def.key}`, def);
  return fields;
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell's value for a field; a cell not of the field's kind stays text, for the field's own check to refuse. */
export function cellValue(kind: Kind | CustomFieldDef, cell: string): unknown {
  const type = typeof kind === 'string' ? kind : kind.type;
  const trimmed = cell.trim();
  switch (type) {
    case 'number':
      return NUMBER.test(trimmed) ? Number(trimmed) : cell;
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      return TRUE.has(lower) ? true : FALSE.has(lower) ? false : cell;
    }
    case 'list':
      return cell
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    default:
      return cell;
  }
}

/** Sets `value` at a field path of one or two parts (`email`, `address.city`, `custom_fields.tier`). */
export function setField(data: Record<string, unknown>, path: string, value: unknown): void {
  const dot = path.indexOf('.');
  if (dot === -1) {
    data[path] = value;
    return;
  }
  const head = path.slice(0, dot);
  const inner = (data[head] ??= {}) as Record<string, unknown>;
  inner[path.slice(dot + 1)] = value;
}

// A `where` input, checked against its resource and the workspace's custom fields, as a condition
// tree the stores translate (where.prisma.ts for lists Prisma selects, where.sql.ts for lists
// selected in SQL). Here are the checks GraphQL's types cannot state: the limits, dates, text
// lengths, and custom fields' operators and values by their defined type.
import { validationError, type ErrorDetails } from '../../../errors.ts';
import type { CustomFieldDef } from '../../custom-field/custom-field.rules.ts';
import { parseCalendarDate, parseCalendarDateTime } from '../dates.ts';
import { isDatabaseText } from '../storable.ts';
import {
  KIND_OPERATORS,
  owns,
  RELATION_COST,
  WHERE_LIMITS,
  type FieldKind,
  type FieldSpec,
  type Operator,
  type RelationSpec,
  type ResourceWhere,
} from './where.spec.ts';

/** A field a condition tests: a column, or a custom field's key with its defined kind. */
export type Target = { column: FieldSpec } | { custom: string; kind: FieldKind };

export type Condition =
  | { and: Condition[] }
  | { or: Condition[] }
  | { not: Condition }
  | { test: Target; op: Operator; value: unknown }
  | { relation: RelationSpec; where: Condition };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A custom field's type as the kind of field its values are. */
const CUSTOM_KINDS: Record<string, FieldKind> = {
  text: 'text',
  select: 'text',
  number: 'decimal',
  boolean: 'boolean',
  date: 'date',
};

/** Thrown once a filter costs more than the limit: the rest of it is not read. */
class OverLimit extends Error {}

class Compiler {
  readonly details: ErrorDetails = {};
  conditions = 0;

  /** Adds to the filter's cost (WHERE_LIMITS.conditions); stops the compile beyond the limit. */
  cost(n: number) {
    this.conditions += n;
    if (this.conditions > WHERE_LIMITS.conditions) throw new OverLimit();
  }

  constructor(private readonly defs: readonly CustomFieldDef[]) {}

  fail(path: string, message: string) {
    if (Object.keys(this.details).length < 50) (this.details[path] ??= []).push(message);
  }

  /** A value the kind can hold, as the store compares it; undefined (with a finding) when it is none. */
  value(kind: FieldKind, v: unknown, path: string, field?: FieldSpec): unknown {
    switch (kind) {
      case 'text':
      case 'id':
      case 'enum':
      case 'tags': {
        if (typeof v !== 'string') return this.fail(path, 'must be a string');
        if (v.length > WHERE_LIMITS.textLength)
          return this.fail(path, `must be at most ${WHERE_LIMITS.textLength} characters`);
        if (!isDatabaseText(v)) return this.fail(path, 'must not hold a NUL character or broken UTF-16');
        if (field?.values && !field.values.includes(v))
          return this.fail(path, `must be one of: ${field.values.join(', ')}`);
        return field?.folded ? v.toLowerCase() : v;
      }
      case 'int':
        return Number.isSafeInteger(v) ? v : this.fail(path, 'must be an integer');
      case 'decimal':
        return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(path, 'must be a number');
      case 'boolean':
        return typeof v === 'boolean' ? v : this.fail(path, 'must be true or false');
      case 'datetime': {
        const at = typeof v === 'string' ? parseCalendarDateTime(v) : null;
        return at ?? this.fail(path, 'must be an ISO 8601 date or date-time that exists');
      }
      case 'date': {
        const day = typeof v === 'string' ? parseCalendarDate(v) : null;
        if (!day) return this.fail(path, 'must be a date (YYYY-MM-DD) that exists');
        return v;
      }
    }
  }

  /** The conditions of one field's operator object, all of which must hold. */
  operators(target: Target, kind: FieldKind, ops: unknown, path: string, field?: FieldSpec): Condition[] {
    if (!isObject(ops)) {
      this.fail(path, 'must be an object of operators');
      return [];
    }
    const out: Condition[] = [];
    for (const [op, raw] of Object.entries(ops)) {
      if (raw === undefined || raw === null) continue; // GraphQL: an operator given as null is not given
      const at = `${path}.${op}`;
      if (!(KIND_OPERATORS[kind] as readonly string[]).includes(op)) {
        this.fail(at, `is not an operator of a ${kind} field; allowed: ${KIND_OPERATORS[kind].join(', ')}`);
        continue;
      }
      // Each value of a custom field's in / nin is a test of its own.
      this.cost('custom' in target && Array.isArray(raw) ? Math.max(1, raw.length) : 1);
      let value: unknown;
      if (op === 'is_null') {
        if (typeof raw !== 'boolean') this.fail(at, 'must be true or false');
        value = raw;
      } else if (op === 'in' || op === 'nin') {
        if (!Array.isArray(raw)) {
          this.fail(at, 'must be a list');
          continue;
        }
        if (raw.length > WHERE_LIMITS.listValues) {
          this.fail(at, `must hold at most ${WHERE_LIMITS.listValues} values`);
          continue;
        }
        const itemKind = kind === 'tags' ? 'text' : kind;
        value = raw.map((item, i) => this.value(itemKind, item, `${at}.${i}`, field));
      } else if (op === 'contains' || op === 'starts_with') {
        value = this.value(kind === 'tags' ? 'tags' : 'text', raw, at, field?.values ? undefined : field);
      } else value = this.value(kind, raw, at, field);
      out.push({ test: target, op: op as Operator, value });
    }
    return out;
  }

  where(spec: ResourceWhere, where: unknown, path: string, depth: number, inRelation: boolean): Condition {
    if (depth > WHERE_LIMITS.depth) {
      this.fail(path, `nests deeper than ${WHERE_LIMITS.depth} levels of and, or, not and relations`);
      return { and: [] };
    }
    if (!isObject(where)) {
      this.fail(path, 'must be an object');
      return { and: [] };
    }
    const all: Condition[] = [];
    for (const [key, v] of Object.entries(where)) {
      if (v === undefined || v === null) continue;
      const at = `${path}.${key}`;
      if (key === 'and' || key === 'or' || key === 'not') this.cost(1);
      if (key === 'and' || key === 'or') {
        if (!Array.isArray(v)) {
          this.fail(at, 'must be a list of filters');
          continue;
        }
        const parts = v.map((item, i) => {
          this.cost(1);
          return this.where(spec, item, `${at}.${i}`, depth + 1, inRelation);
        });
        all.push(key === 'and' ? { and: parts } : { or: parts });
      } else if (key === 'not') {
        all.push({ not: this.where(spec, v, at, depth + 1, inRelation) });
      } else if (key === 'custom_fields' && spec.customFields) {
        if (!isObject(v)) {
          this.fail(at, 'must map custom field keys to operators');
          continue;
        }
        for (const [name, ops] of Object.entries(v)) {
          const def = this.defs.find((d) => d.key === name);
          const kind = def && CUSTOM_KINDS[def.type];
          if (!kind) {
            const keys = this.defs.map((d) => d.key);
            this.fail(`${at}.${name}`, `is not a custom field of the workspace; defined: ${keys.join(', ') || 'none'}`);
            continue;
          }
          const field: FieldSpec | undefined =
            def.type === 'select' ? { kind: 'enum', field: name, values: def.options } : undefined;
          all.push(...this.operators({ custom: name, kind }, kind, ops, `${at}.${name}`, field));
        }
      } else if (owns(spec.fields, key)) {
        const field = spec.fields[key];
        all.push(...this.operators({ column: field }, field.kind, v, at, field));
      } else if (!inRelation && owns(spec.relations, key)) {
        const relation = spec.relations[key];
        this.cost(RELATION_COST);
        all.push({ relation, where: this.where(relation.target(), v, at, depth + 1, true) });
      } else this.fail(at, `is not a field of ${spec.name} that filters can name`);
    }
    return all.length === 1 ? all[0] : { and: all };
  }
}

/** The conditions a `where` input states; a 400 with every finding when it breaks a rule. */
export function compileWhere(spec: ResourceWhere, where: unknown, defs: readonly CustomFieldDef[]): Condition {
  const compiler = new Compiler(defs);
  let condition: Condition;
  try {
    condition = compiler.where(spec, where, 'where', 1, false);
  } catch (err) {
    if (!(err instanceof OverLimit)) throw err;
    throw validationError(
      { where: [`costs more than ${WHERE_LIMITS.conditions} conditions (docs/filtering.md: Limits)`] },
      'The filter is too large',
    );
  }
  if (Object.keys(compiler.details).length) throw validationError(compiler.details, 'The filter is not valid');
  return condition;
}

/** Whether a `where` input names custom fields anywhere (only then are the definitions read). */
export function namesCustomFields(where: unknown): boolean {
  if (Array.isArray(where)) return where.some(namesCustomFields);
  if (!isObject(where)) return false;
  return Object.entries(where).some(([k, v]) => (k === 'custom_fields' && v != null) || namesCustomFields(v));
}

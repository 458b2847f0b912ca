// A REST filter as the GraphQL `where` input it stands for. REST clients write field paths
// (`"company.domain"`, `"custom_fields.industry"`) and bare values (`"status": "lead"` means eq);
// GraphQL's typed input nests them (`company_record: { domain: { eq } }`). Here the first becomes
// the second, and every name that is no field or operator is refused with a 400 that names it and
// what is allowed, before GraphQL would drop or misreport it.
import { validationError, type ErrorDetails } from '../../../errors.ts';
import { KIND_OPERATORS, OPERATORS, owns, WHERE_LIMITS, type FieldSpec, type ResourceWhere } from './where.spec.ts';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMBINATORS = ['and', 'or', 'not'];

function add(details: ErrorDetails, key: string, message: string) {
  if (Object.keys(details).length >= 50) return;
  (details[key] ??= []).push(message);
}

/** The names a filter of `spec` may use at this level, for error messages. */
function namesOf(spec: ResourceWhere, inRelation: boolean): string {
  const names = [...Object.keys(spec.fields)];
  if (spec.customFields) names.push('custom_fields.<key>');
  if (!inRelation) for (const r of Object.keys(spec.relations)) names.push(`${r}.<field>`);
  return [...names, ...COMBINATORS].join(', ');
}

/** An operator object, or a bare value as the operator it means. */
function operatorsOf(field: FieldSpec | null, value: unknown, path: string, details: ErrorDetails): Obj | undefined {
  const allowed = field ? KIND_OPERATORS[field.kind] : OPERATORS;
  if (isObject(value)) {
    const unknown = Object.keys(value).filter((op) => !(allowed as readonly string[]).includes(op));
    for (const op of unknown) add(details, `${path}.${op}`, `is not an operator here; allowed: ${allowed.join(', ')}`);
    if (Object.keys(value).length === 0) add(details, path, `must name an operator: ${allowed.join(', ')}`);
    return unknown.length ? undefined : value;
  }
  if (Array.isArray(value)) {
    add(details, path, 'a list needs an operator, such as { "in": [...] }');
    return undefined;
  }
  if (value === null) return { is_null: true };
  return field?.kind === 'tags' ? { contains: value } : { eq: value };
}

function merge(into: Obj, key: string, value: Obj) {
  into[key] = isObject(into[key]) ? { ...(into[key] as Obj), ...value } : value;
}

/** Nodes a filter may hold before it is refused unread: far above any filter within the limits. */
const MAX_NODES = WHERE_LIMITS.conditions * 10;

class TooLarge extends Error {}

/** Keys walked in the current filter (one filter is normalised at a time: the walk is synchronous). */
const nodes = { seen: 0 };

function walk(
  spec: ResourceWhere,
  value: unknown,
  path: string,
  depth: number,
  inRelation: boolean,
  details: ErrorDetails,
): Obj | undefined {
  if (!isObject(value)) {
    add(details, path, 'must be a JSON object');
    return undefined;
  }
  if (depth > WHERE_LIMITS.depth) {
    add(details, path, `nests deeper than ${WHERE_LIMITS.depth} levels of and, or, not and relations`);
    return undefined;
  }
  const out: Obj = {};
  for (const [key, v] of Object.entries(value)) {
    if (++nodes.seen > MAX_NODES) throw new TooLarge();
    const at = `${path}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(v)) add(details, at, 'must be a list of filters');
      else
        out[key] = v.map((item, i) => {
          if (++nodes.seen > MAX_NODES) throw new TooLarge();
          return walk(spec, item, `${at}.${i}`, depth + 1, inRelation, details);
        });
      continue;
    }
    if (key === 'not') {
      out.not = walk(spec, v, at, depth + 1, inRelation, details);
      continue;
    }
    if (owns(spec.fields, key)) {
      out[key] = operatorsOf(spec.fields[key], v, at, details);
      continue;
    }
    const dot = key.indexOf('.');
    const head = dot < 0 ? key : key.slice(0, dot);
    const rest = dot < 0 ? '' : key.slice(dot + 1);
    if (head === 'custom_fields' && spec.customFields) {
      const entries = rest ? [[rest, v] as const] : isObject(v) ? Object.entries(v) : null;
      if (!entries) add(details, at, 'must map custom field keys to operators');
      else
        for (const [k, ops] of entries) {
          const opsOf = operatorsOf(null, ops, `${path}.custom_fields.${k}`, details);
          if (opsOf) merge(out, 'custom_fields', { [k]: opsOf });
        }
      continue;
    }
    const relation = inRelation ? undefined : owns(spec.pathAliases, head) ? spec.pathAliases[head] : head;
    if (relation && owns(spec.relations, relation) && (rest || isObject(v))) {
      const target = spec.relations[relation].target();
      const inner = walk(target, rest ? { [rest]: v } : v, `${path}.${head}`, depth + 1, true, details);
      if (inner) merge(out, relation, inner);
      continue;
    }
    add(details, at, `is not a field of ${spec.name} that filters can name; allowed: ${namesOf(spec, inRelation)}`);
  }
  return out;
}

/** The GraphQL `where` input a REST filter stands for; a 400 naming every unknown field and operator. */
export function normaliseWhere(spec: ResourceWhere, value: unknown): Obj | undefined {
  if (value === undefined || value === null) return undefined;
  const details: ErrorDetails = {};
  nodes.seen = 0;
  let out: Obj | undefined;
  try {
    out = walk(spec, value, 'where', 1, false, details);
  } catch (err) {
    if (!(err instanceof TooLarge)) throw err;
    throw validationError({ where: [`holds more than ${MAX_NODES} fields and filters`] }, 'The filter is too large');
  }
  if (Object.keys(details).length)
    throw validationError(details, 'The filter names fields or operators that do not exist');
  return out;
}

// REST requests as GraphQL variables of the route's typed operation. A REST client sends what the
// spec shows: bodies may carry read-only or unknown keys (ignored, as they always were), query
// strings carry text, and sort is `-created_at,first_name`. Here those become the typed variables
// GraphQL expects, and whatever still does not fit is refused as the API's own 400 naming each
// field, in REST words rather than GraphQL's ("Variable "$input" got invalid value ...").
import {
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { z } from 'zod';
import { validationError, type ErrorDetails } from '../errors.ts';
import { MAX_LIMIT } from '../schema/common/pagination.ts';
import { sortEnumNames } from '../schema/common/sort.ts';
import { issuesToDetails } from '../schema/common/validation.ts';
import { assertStorable } from '../schema/common/storable.ts';
import { normaliseWhere } from '../schema/common/where/where.normalise.ts';
import type { ResourceWhere } from '../schema/common/where/where.spec.ts';
import { EXPECTED, snakeCase } from './errors.ts';

/** Values of a body or query the input type has no field for are dropped, at every depth. */
function prune(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return value;
  if (isListType(inner))
    return Array.isArray(value) ? value.map((v) => prune(v, inner.ofType)) : prune(value, inner.ofType);
  if (isInputObjectType(inner) && typeof value === 'object' && !Array.isArray(value)) {
    const fields = inner.getFields();
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) if (Object.hasOwn(fields, key)) out[key] = prune(v, fields[key].type);
    return out;
  }
  return value;
}

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * Fields at fault one answer names at most, as graphql-js stops at 50 variable errors: a body of
 * 10^5 list items of the wrong type is refused with a short answer, not 10^5 errors built (each
 * with its stack) and sent back.
 */
export const MAX_DETAILS = 50;

/** Thrown out of a walk over a value once MAX_DETAILS fields are at fault. */
const ENOUGH = Symbol('enough details');

/** A single value where a JSON body must hold a list (GraphQL would take it as a list of one). */
function notListed(value: unknown, type: GraphQLInputType, path: string[], found: string[][]): void {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return;
  if (isListType(inner)) {
    if (!Array.isArray(value)) {
      found.push(path);
      if (found.length >= MAX_DETAILS) throw ENOUGH;
    } else value.forEach((v, i) => notListed(v, inner.ofType, [...path, String(i)], found));
  } else if (isInputObjectType(inner) && typeof value === 'object' && !Array.isArray(value)) {
    const fields = inner.getFields();
    for (const [key, v] of Object.entries(value))
      if (Object.hasOwn(fields, key)) notListed(v, fields[key].type, [...path, key], found);
  }
}

/** Runs a walk that may stop early with ENOUGH; true when it did. */
function stoppedEarly(walk: () => void): boolean {
  try {
    walk();
    return false;
  } catch (err) {
    if (err === ENOUGH) return true;
    throw err;
  }
}

/** Query-string text as the scalar the filter field takes; text that is no such value stays text and is refused. */
function fromQuery(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (Array.isArray(value) && !isListType(inner)) value = value[value.length - 1]; // ?a=1&a=2: the last one
  if (isInputObjectType(inner) && value && typeof value === 'object') {
    const fields = inner.getFields();
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, Object.hasOwn(fields, k) ? fromQuery(v, fields[k].type) : v]),
    );
  }
  if (typeof value !== 'string') return value;
  const name = getNamedType(inner).name;
  if ((name === 'Int' || name === 'Float') && NUMBER.test(value)) return Number(value);
  if (name === 'Boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** `-created_at,first_name` as the values of a sort enum: `created_at_desc`, `first_name_asc`. */
export const sortValues = (text: string | undefined): string[] | undefined =>
  text === undefined ? undefined : sortEnumNames(text);

/** One coercion failure in the API's words, from what GraphQL reports about it. */
function problemOf(error: GraphQLError, schema: GraphQLSchema, value: unknown): { problem: string; field?: string } {
  const message = error.message;
  const missing = /^Field "(\w+)" of required type ".*" was not provided\./.exec(message);
  if (missing) return { problem: 'is required', field: missing[1] };
  if (/found null\.$|not to be null\.$/.test(message)) return { problem: 'must not be null' };
  const enumName =
    /does not exist in "(\w+)" enum/.exec(message)?.[1] ?? /^Enum "(\w+)" cannot represent/.exec(message)?.[1];
  const enumType = enumName ? schema.getType(enumName) : undefined;
  if (enumType && isEnumType(enumType)) {
    const names = enumType.getValues().map((v) => v.name);
    if (enumName!.endsWith('Sort')) {
      const fields = [...new Set(names.map((n) => n.replace(/_(asc|desc)$/, '')))];
      const asked = typeof value === 'string' ? value.replace(/_(asc|desc)$/, '') : String(value);
      return { problem: `cannot sort by "${asked}"; allowed: ${fields.join(', ')}` };
    }
    return { problem: `must be one of: ${names.join(', ')}` };
  }
  if (/to be an object\.$/.test(message)) return { problem: 'must be a JSON object' };
  const scalar = /^(\w+) cannot represent/.exec(message)?.[1];
  if (scalar && EXPECTED[scalar]) return { problem: EXPECTED[scalar] };
  return { problem: 'has a value of the wrong type' };
}

/**
 * Adds to `details`, under keyOf(path), each part of `value` that does not fit `type`: a single value
 * where a list goes (when `lists`: JSON bodies must say lists as lists), and what GraphQL's
 * coercion refuses. Returns true when it stopped at MAX_DETAILS.
 */
function typeProblems(
  schema: GraphQLSchema,
  value: unknown,
  type: GraphQLInputType,
  keyOf: (parts: string[]) => string,
  details: ErrorDetails,
  lists: boolean,
): boolean {
  let capped = false;
  const singles: string[][] = [];
  if (lists) {
    capped = stoppedEarly(() => notListed(value, type, [], singles));
    for (const path of singles) (details[keyOf(path)] ??= []).push('must be a list');
  }
  // GraphQL reads a single value as a list of one: what it finds inside is no news to a client
  // told the value must be a list (`stages: {}` is not also missing `stages.name`).
  const inSingle = (path: readonly (string | number)[]) =>
    singles.some((single) => single.every((part, i) => String(path[i]) === part));
  return (
    stoppedEarly(() =>
      coerceInputValue(value, type, (path, invalid, error) => {
        if (singles.length && inSingle(path)) return;
        const { problem, field } = problemOf(error, schema, invalid);
        const key = keyOf([...path, ...(field ? [field] : [])].map(String));
        if (!details[key]?.includes(problem)) (details[key] ??= []).push(problem);
        if (Object.keys(details).length >= MAX_DETAILS) throw ENOUGH;
      }),
    ) || capped
  );
}

/**
 * The parts of one JSON body value that do not fit `type` (its unknown keys
 * ignored), in the API's words (`_` for the value itself); null when it fits.
 */
export function valueProblems(schema: GraphQLSchema, type: GraphQLInputType, value: unknown): ErrorDetails | null {
  const details: ErrorDetails = {};
  typeProblems(schema, prune(value, type), type, (parts) => (parts.length ? parts.join('.') : '_'), details, true);
  return Object.keys(details).length ? details : null;
}

/**
 * Makes a route's variables fit its operation: unknown keys dropped, query text typed (for the
 * variables named in `fromQueryString`), then every value checked against its GraphQL type. The
 * field names in errors leave out `input.` and `filter.`: a REST client sent those fields bare.
 */
export function restVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  rules: Partial<Record<string, z.ZodType>> = {},
  fromQueryString: readonly string[] = ['filter'],
) {
  const definitions = (operation.variableDefinitions ?? []).map((d) => ({
    name: d.variable.name.value,
    type: typeFromAST(schema, d.type as never) as GraphQLInputType,
  }));
  return (raw: Record<string, unknown>): Record<string, unknown> => {
    const values: Record<string, unknown> = {};
    const details: ErrorDetails = {};
    for (const { name, type } of definitions) {
      let value = raw[name];
      if (value === undefined) {
        if (isNonNullType(type)) (details[snakeCase(name)] ??= []).push('is required');
        continue;
      }
      if (fromQueryString.includes(name)) value = fromQuery(value, type);
      value = prune(value, type);
      values[name] = value;
      const keyOf = (parts: string[]) =>
        name === 'input' || name === 'filter'
          ? parts.length
            ? parts.join('.')
            : name === 'input'
              ? '_'
              : 'filter'
          : name === 'where'
            ? ['where', ...parts].join('.')
            : snakeCase(name);
      const before = Object.keys(details).length;
      const capped = typeProblems(schema, value, type, keyOf, details, !fromQueryString.includes(name));
      if (capped) break;
      // The rules' own findings on the same value, so one answer names every field at fault, as
      // the resolver would have (GraphQL stops at the type of each field).
      const rule = rules[name];
      if (rule && Object.keys(details).length > before) {
        const checked = rule.safeParse(value);
        if (!checked.success)
          for (const [key, messages] of Object.entries(issuesToDetails(checked.error.issues)))
            details[key] ??= messages;
      }
    }
    if (Object.keys(details).length) throw validationError(details);
    return values;
  };
}

/** What a route's `variables` reads: the path parameters, the query string and the JSON body. */
export interface RouteRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

const PAGE_PARAMS = ['limit', 'cursor', 'sort', 'fields'];

/** A query parameter as text; given twice (`?a=1&a=2`), the last one. */
export function text(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? String(v[v.length - 1]) : String(v);
}

/** An integer query parameter from `min` to `max`, refused in the words the operation would use. */
function intParam(query: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const raw = text(query[name]);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    throw validationError({ [name]: [`must be an integer from ${min} to ${max}`] });
  }
  return value;
}

/** Paging variables, plus the remaining query parameters as `filter` when asked. */
export const page =
  (extra: (r: RouteRequest) => Record<string, unknown> = () => ({}), withFilter = false) =>
  (r: RouteRequest) => {
    const vars: Record<string, unknown> = {
      limit: intParam(r.query, 'limit', 1, MAX_LIMIT),
      cursor: text(r.query.cursor),
      sort: sortValues(text(r.query.sort)),
      ...extra(r),
    };
    if (withFilter) vars.filter = Object.fromEntries(Object.entries(r.query).filter(([k]) => !PAGE_PARAMS.includes(k)));
    return vars;
  };

/**
 * `POST /v1/<resource>/query`: the body's filter as the list's `where` input (a name that is no field
 * or operator refused here, naming it), and its sort and paging as the query-string lists take them.
 */
export const queryBody = (spec: ResourceWhere) => (r: RouteRequest) => {
  const b = r.body as Record<string, unknown>;
  // Checked as sent: sort and fields are trimmed into names, which would hide a control character.
  assertStorable({ sort: b.sort, fields: b.fields });
  const sort = Array.isArray(b.sort) ? b.sort.join(',') : b.sort;
  if (sort !== undefined && typeof sort !== 'string')
    throw validationError({ sort: ['must be text such as -created_at,first_name, or a list of such keys'] });
  return { where: normaliseWhere(spec, b.where), sort: sortValues(sort), limit: b.limit, cursor: b.cursor };
};

export const id = (r: RouteRequest) => ({ id: r.params.id });
export const idAndBody = (r: RouteRequest) => ({ id: r.params.id, input: r.body });
export const body = (r: RouteRequest) => ({ input: r.body });
export const contactId = (r: RouteRequest) => ({ contactId: r.params.id });

// A bulk body's rows succeed or fail alone (POST /v1/contacts/bulk), also a row that is no row of
// the input type at all: `null`, text, `"status": "LEAD"`, `"tags": "vip"`. Such a row cannot travel
// in the operation's typed variables, which would refuse the whole request. It travels as an empty
// row instead, which the resolver refuses at the same index without writing anything, and the
// answer's error for that index names what was wrong with the row as sent.
import {
  getNullableType,
  isInputObjectType,
  isListType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { DetailsWithFacts, ErrorDetails } from '../errors.ts';
import { valueProblems } from './variables.ts';

/** The type of one item of the list `field` of the operation's `$input`. */
export function rowTypeOf(schema: GraphQLSchema, operation: OperationDefinitionNode, field: string): GraphQLInputType {
  const definition = operation.variableDefinitions?.find((d) => d.variable.name.value === 'input');
  const input = definition && getNullableType(typeFromAST(schema, definition.type as never) as GraphQLInputType);
  const list = input && isInputObjectType(input) ? getNullableType(input.getFields()[field]?.type) : undefined;
  if (!list || !isListType(list)) throw new Error(`${operation.name?.value}: $input has no list field ${field}`);
  return list.ofType as GraphQLInputType;
}

export interface SetAside {
  /** The body with each unfit row replaced by an empty one. */
  body: unknown;
  /** What is wrong with each unfit row, by index. */
  unfit: Map<number, ErrorDetails>;
  rows: unknown[];
}

/**
 * Takes the rows of `body[field]` that do not fit `rowType` out of the typed request. A body with
 * no such list, or more rows than `max`, is left as it is, to be refused whole.
 */
export function setAsideUnfitRows(
  schema: GraphQLSchema,
  rowType: GraphQLInputType,
  body: unknown,
  field: string,
  max: number,
): SetAside | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const rows = (body as Record<string, unknown>)[field];
  if (!Array.isArray(rows) || rows.length > max) return null;
  const unfit = new Map<number, ErrorDetails>();
  const fitted = rows.map((row, index) => {
    const problems = valueProblems(schema, rowType, row);
    if (!problems) return row;
    unfit.set(index, problems);
    return {};
  });
  if (!unfit.size) return null;
  return { body: { ...body, [field]: fitted }, unfit, rows };
}

type RowError = { code: string; message: string; details?: DetailsWithFacts };

/** A bulk create's answer (its refused rows) or a batch's (a result per operation). */
export interface BulkAnswer {
  errors?: { index: number; email: unknown; error: RowError }[];
  results?: { index: number; error: RowError | null }[];
}

/** Puts each set-aside row's own problems in its error entry, in place of the empty row's. */
export function answerUnfitRows(answer: BulkAnswer, aside: SetAside): void {
  for (const entry of answer.errors ?? []) {
    const problems = aside.unfit.get(entry.index);
    if (!problems) continue;
    const row = aside.rows[entry.index];
    const email = row && typeof row === 'object' ? (row as { email?: unknown }).email : undefined;
    entry.email = typeof email === 'string' ? email : null;
    entry.error = { ...entry.error, details: problems };
  }
  for (const entry of answer.results ?? []) {
    const problems = aside.unfit.get(entry.index);
    if (problems && entry.error) entry.error = { ...entry.error, details: problems };
  }
}

// JSON from a client is read strictly: what JSON.parse would quietly change is refused instead.
// - A key given twice ({"title":"x","title":"y"}): JSON.parse keeps the last one; which one the
//   client meant is unknown, so the body is malformed.
// - A number a double cannot hold as written (1e-400 underflows to 0, 1e400 overflows,
//   12345678901234567890 loses its last digits): the field is refused, naming it.
// JSON.parse still does the parsing (iterative, so any nesting is safe to read); lossless-json
// then checks the text of the bodies that pass the depth limit.
import { getUnsafeNumberReason, parse as parseLossless, type UnsafeNumberReason } from 'lossless-json';
import { AppError, validationError } from '../errors.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.ts';

const NUMBER_MESSAGES: Record<UnsafeNumberReason, string> = {
  underflow: 'is a number too close to zero to be held exactly; it would be read as 0',
  overflow: 'is a number too large to be held',
  truncate_integer: 'is an integer with more digits than can be held exactly',
  truncate_float: 'is a number with more significant digits than can be held exactly',
};

/** A number literal as written; duplicate keys with the same literal are no conflict, nothing is lost. */
class NumberLiteral {
  constructor(
    readonly text: string,
    readonly reason: UnsafeNumberReason | undefined,
  ) {}
}

/** The path (`a.0.b`) and reason of the first number in `value` marked unsafe. */
function unsafeNumberAt(value: unknown): { path: string; reason: UnsafeNumberReason } | null {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: item, path } = stack.pop()!;
    if (item instanceof NumberLiteral && item.reason) return { path: path.join('.') || '_', reason: item.reason };
    if (typeof item !== 'object' || item === null) continue;
    for (const [key, child] of Array.isArray(item) ? item.entries() : Object.entries(item))
      stack.push({ value: child, path: [...path, String(key)] });
  }
  return null;
}

/**
 * Parses client JSON: a 400 malformed_request for text that is not JSON, nests too deep or repeats
 * a key; a 400 validation_error naming the field of a number that would not survive parsing.
 * `what` names the text in messages ("The request body").
 */
export function parseStrictJson(text: string, what = 'The request body'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('malformed_request', `${what} is not valid JSON`);
  }
  if (nestedDeeperThan(value))
    throw new AppError('malformed_request', `${what} is nested more than ${MAX_JSON_DEPTH} levels deep`);
  if (value === null || typeof value !== 'object') return checkedScalar(text, value);
  let unsafe = false;
  let checked: unknown;
  // One NumberLiteral per distinct literal: a body of 10^5 copies of `1` holds one, not 10^5.
  const literals = new Map<string, NumberLiteral>();
  try {
    checked = parseLossless(text, null, (literal: string) => {
      let number = literals.get(literal);
      if (!number) {
        const reason = getUnsafeNumberReason(literal);
        if (reason) unsafe = true;
        literals.set(literal, (number = new NumberLiteral(literal, reason)));
      }
      return number;
    });
  } catch (err) {
    const duplicate = /^Duplicate key '(.*)' encountered/s.exec((err as Error).message);
    if (duplicate) throw new AppError('malformed_request', `${what} gives the key "${duplicate[1]}" more than once`);
    throw new AppError('malformed_request', `${what} is not valid JSON`);
  }
  if (unsafe) {
    const at = unsafeNumberAt(checked)!;
    throw validationError({ [at.path]: [NUMBER_MESSAGES[at.reason]] });
  }
  return value;
}

function checkedScalar(text: string, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  const reason = getUnsafeNumberReason(text.trim());
  if (reason) throw validationError({ _: [NUMBER_MESSAGES[reason]] });
  return value;
}

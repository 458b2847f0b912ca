// Entity tags of single-record answers: a record's `version` (an integer the database raises on
// every change) as a strong tag, `ETag: "3"`. Clients send it back in `If-Match` (a write applies
// only to that version) and `If-None-Match` (a read answers 304 while the record is unchanged).
// Tags are compared by their version: a weak `W/"3"` counts as 3 for both headers.
import { validationError } from '../errors.ts';

/** The ETag header value of a record at `version`. */
export const etagOf = (version: number): string => `"${version}"`;

/** The version a single-record answer body carries as `data.version`, when it has one. */
export function answerVersion(data: unknown): number | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const version = (data as { version?: unknown }).version;
  return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}

/** What a precondition header asks for: any current record (`*`), or one of these versions. */
export type Precondition = { any: true } | { any: false; versions: number[] };

const TAG = /^(?:W\/)?"([1-9][0-9]{0,8})"$/;
const MAX_TAGS = 50;

/**
 * Parses an If-Match or If-None-Match value: `*`, or a comma-separated list of entity tags
 * (`"3"`, `W/"3"`). Anything else, a tag that is not one of ours (not a version) included, is a 400
 * naming the header: a client sending it has a bug worth hearing about rather than a silent 412.
 * `single`: the header may name one version only (If-Match, which becomes one `expected_version`).
 */
export function parsePrecondition(
  header: 'If-Match' | 'If-None-Match',
  raw: string | undefined,
  single = false,
): Precondition | null {
  if (raw === undefined) return null;
  const value = raw.trim();
  if (value === '*') return { any: true };
  const parts = value.split(',').map((p) => p.trim());
  const shape = single
    ? 'must be * or one entity tag such as "3" (the ETag of the version the change is based on)'
    : 'must be * or a comma-separated list of entity tags such as "3", W/"3"';
  if (parts.length > (single ? 1 : MAX_TAGS)) throw validationError({ [header]: [shape] });
  const versions: number[] = [];
  for (const part of parts) {
    const match = TAG.exec(part);
    if (!match) throw validationError({ [header]: [shape] });
    versions.push(Number(match[1]));
  }
  return { any: false, versions };
}

/** Whether an If-None-Match precondition matches a record at `version` (then the answer is a 304). */
export const noneMatchHolds = (condition: Precondition, version: number): boolean =>
  condition.any || condition.versions.includes(version);

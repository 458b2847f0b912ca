// Request JSON nested deeper than any resource needs is refused up front: recursive code further on
// (request hashing, validation, the database's JSON parser) would otherwise run out of stack.

/** Far more than any body or variables of this API use (custom fields and filters are a few levels). */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests arrays or objects more than `max` levels deep; iterative, so any depth is safe to check. */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

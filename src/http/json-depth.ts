// Request JSON nested deeper than any resource needs is refused up front: recursive code further on
// (request hashing, validation, the database's JSON parser) would otherwise run out of stack.

/** Far more than any body or variables of this API use (custom fields and filters are a few levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests arrays or objects more than `max` levels deep; iterative, so any
 * depth is safe to check, with one frame per open level rather than one entry per value, so a list
 * of 10^5 items costs no more memory than its nesting does.
 */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  const frames: { children: unknown[]; next: number }[] = [{ children: Object.values(value), next: 0 }];
  while (frames.length) {
    const frame = frames[frames.length - 1];
    if (frame.next === frame.children.length) {
      frames.pop();
      continue;
    }
    const child = frame.children[frame.next++];
    if (child === null || typeof child !== 'object') continue;
    // The child is at depth frames.length (the top-level value is at depth 0).
    if (frames.length >= max) return true;
    frames.push({ children: Object.values(child), next: 0 });
  }
  return false;
}

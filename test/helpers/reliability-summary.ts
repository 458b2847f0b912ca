// One summary line per reliability file, in one format, so a run's closing note can quote them:
//   <file>: faults injected F (what), events produced P, delivered D (distinct), duplicates X | details
export interface ReliabilitySummary {
  faults: number;
  /** What the faults were ("PostgreSQL restart", "worker SIGKILL", "none: ..."). */
  faultKind: string;
  produced: number;
  /** Distinct event ids the receivers got. */
  delivered: number;
  /** Requests beyond the first for an event id (at-least-once repeats, same event id). */
  duplicates: number;
  details?: string;
}

export function printSummary(name: string, s: ReliabilitySummary): string {
  const line =
    `${name}: faults injected ${s.faults} (${s.faultKind}), events produced ${s.produced}, ` +
    `delivered ${s.delivered} (distinct), duplicates ${s.duplicates}${s.details ? ` | ${s.details}` : ''}`;
  console.log(line);
  return line;
}

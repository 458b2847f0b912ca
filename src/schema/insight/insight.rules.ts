// The Insight figures' pure parts: which months a window covers, and the rates and their absence
// (a month without closed deals has no win rate, not a rate of 0).

/** Calendar months (UTC, "YYYY-MM"), oldest first, ending with the month of `now`. */
export function monthsEndingAt(now: Date, count: number): string[] {
  const months: string[] = [];
  for (let back = count - 1; back >= 0; back--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    months.push(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return months;
}

/** The first instant of the oldest of `count` months ending with the month of `now`. */
export function windowStart(now: Date, count: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (count - 1), 1));
}

/** `part` of `whole` as a fraction 0..1; null when there is nothing to divide. */
export function rate(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

export interface MonthOutcome {
  month: string;
  won: number;
  lost: number;
  win_rate: number | null;
  median_cycle_days: number | null;
}

/** Every month of the window, in order; months the database had no closed deals for count zero. */
export function fillMonths(
  months: string[],
  rows: { month: string; won: number; lost: number; median_days: number | null }[],
): MonthOutcome[] {
  const byMonth = new Map(rows.map((r) => [r.month, r]));
  return months.map((month) => {
    const r = byMonth.get(month);
    const won = r?.won ?? 0;
    const lost = r?.lost ?? 0;
    return { month, won, lost, win_rate: rate(won, won + lost), median_cycle_days: r?.median_days ?? null };
  });
}

/** A whole-number count argument within its bounds, or the field's problem for the error details. */
export function countProblem(value: number, min: number, max: number): string | null {
  return Number.isInteger(value) && value >= min && value <= max
    ? null
    : `must be a whole number from ${min} to ${max}`;
}

// Dates and date-times from outside, checked as real calendar values. JavaScript's Date parser
// rolls an impossible day over (2027-02-30 becomes 2027-03-02) and takes years no column holds,
// so every field is read here and only a value that names an existing day and time is accepted.

/** Years a stored date may have: four digits, no year 0 (PostgreSQL has none). */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):?(\d{2}))?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

function realDay(year: number, month: number, day: number): boolean {
  return year >= MIN_YEAR && year <= MAX_YEAR && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** `YYYY-MM-DD` naming a day that exists, as UTC midnight; null otherwise. */
export function parseCalendarDate(text: string): Date | null {
  const m = DATE.exec(text);
  if (!m || !realDay(Number(m[1]), Number(m[2]), Number(m[3]))) return null;
  return new Date(`${text}T00:00:00Z`);
}

/**
 * An ISO 8601 date (`YYYY-MM-DD`, UTC midnight) or date-time whose every part is in range
 * (hours 0-23, minutes and seconds 0-59, offsets up to ±23:59); null otherwise.
 */
export function parseCalendarDateTime(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [, year, month, day, hour, minute, second, sign, offsetHours, offsetMinutes] = m;
  if (!realDay(Number(year), Number(month), Number(day))) return null;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return null;
  if (offsetHours !== undefined && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  // Written in the one form the ISO parser reads (a space and +hhmm send Date to its legacy guesses).
  const offset = offsetHours === undefined ? (/Z$/.test(text) ? 'Z' : '') : `${sign}${offsetHours}:${offsetMinutes}`;
  const time = hour === undefined ? 'T00:00:00Z' : `T${text.slice(11).replace(/(Z|[+-]\d{2}:?\d{2})$/, '')}${offset}`;
  const date = new Date(`${year}-${month}-${day}${time}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A date as `toISOString` writes it (what cursors carry), naming a real instant; null otherwise. */
export function parseIsoInstant(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text)) return null;
  const date = parseCalendarDateTime(text);
  return date && date.toISOString() === text ? date : null;
}

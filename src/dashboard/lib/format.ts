// Display formats: the browser's locale, times in its time zone.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatMoney(value: number | null | undefined, currency = 'USD'): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(
      value ?? 0,
    );
  } catch {
    // An unknown currency code: show the number and the code as stored.
    return `${(value ?? 0).toLocaleString()} ${currency}`;
  }
}

export function fullName(p: { first_name?: string | null; last_name?: string | null } | null | undefined): string {
  return [p?.first_name, p?.last_name].filter(Boolean).join(' ') || '—';
}

/** Amounts per currency, e.g. "$1,200 · €300"; no amounts at all shows 0 in `fallback`. */
export function formatSums(sums: Map<string, number>, fallback = 'USD'): string {
  if (sums.size === 0) return formatMoney(0, fallback);
  return [...sums].map(([currency, value]) => formatMoney(value, currency)).join(' · ');
}

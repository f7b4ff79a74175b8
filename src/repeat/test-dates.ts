/** Test support: dates written as 'YYYY-MM-DD' and the noon timestamps the API uses for them. */

/** Unix seconds at 12:00:00 GMT of a date 'YYYY-MM-DD' (any year from 1 to 9999). */
export function noon(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  t.setUTCHours(12);
  return t.getTime() / 1000;
}

/** 'YYYY-MM-DD' of a Unix time. */
export function dateOf(seconds: number): string {
  const t = new Date(seconds * 1000);
  return `${String(t.getUTCFullYear()).padStart(4, '0')}-${String(t.getUTCMonth() + 1).padStart(2, '0')}-${String(t.getUTCDate()).padStart(2, '0')}`;
}

/**
 * How a read for a page of tasks names their ids. A page read in id order is usually dense (ids
 * close together): one range with two parameters then replaces IN lists of up to 512 placeholders,
 * which cost more to bind and plan than the rows they find (a 1000-task page's shares: 648 → 63 µs,
 * docs/decisions/0007). A sparse set (an after= page of scattered edits) keeps the IN lists, so
 * the work stays proportional to the page, not to the account. The caller keeps only rows whose
 * id is in the set: a range may cover ids that are not on the page.
 */

/** Parameters per IN list (well below either database's limit). */
export const CHUNK = 512;

/** A range is used when it spans at most this many ids per id of the set. */
const DENSITY = 4;

export interface IdFilter {
  /** A condition on `column`, with its parameters in order. */
  readonly where: string;
  readonly params: number[];
}

/**
 * `ids` padded (by repeating the last) to one of a few lengths, so that a statement's text, which
 * PostgreSQL prepares once per connection and keeps, takes one of a few forms.
 */
export function padded<T>(ids: readonly T[]): T[] {
  const size = [1, 8, 64, CHUNK].find((n) => n >= ids.length) ?? ids.length;
  return [...ids, ...Array<T>(size - ids.length).fill(ids[ids.length - 1] as T)];
}

/** The conditions that together select every id of `ids` on `column` (none for no ids). */
export function idFilters(column: string, ids: readonly number[]): IdFilter[] {
  if (ids.length === 0) return [];
  let min = ids[0] as number;
  let max = min;
  for (const id of ids) {
    if (id < min) min = id;
    if (id > max) max = id;
  }
  if (ids.length > 8 && max - min + 1 <= DENSITY * ids.length) return [{ where: `${column} BETWEEN ? AND ?`, params: [min, max] }];
  const out: IdFilter[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = padded(ids.slice(i, i + CHUNK));
    out.push({ where: `${column} IN (${part.map(() => '?').join(', ')})`, params: part });
  }
  return out;
}

import type { FilterColumn, TaskFilter } from '../store.js';
import { idList, type Dialect } from './db.js';

/**
 * A TaskFilter as a SQL condition over the row `t`, its values appended to `params`. Only the
 * column names and operators of the fixed lists below reach the SQL; every value is a bound
 * parameter. Numbers are cast to BIGINT: PostgreSQL would type a parameter compared with an
 * INTEGER column as INTEGER and refuse a rule's 15-digit value instead of comparing it.
 */
const COLUMNS: ReadonlySet<FilterColumn> = new Set<FilterColumn>([
  'id', 'title', 'tag', 'note', 'repeat', 'folder', 'context', 'goal', 'location', 'parent',
  'priority', 'status', 'length', 'star', 'duedate', 'startdate', 'completed', 'added', 'modified',
]);
const OPERATORS: ReadonlySet<string> = new Set(['=', '<>', '<', '<=', '>', '>=']);

function column(name: FilterColumn): string {
  if (!COLUMNS.has(name)) throw new Error(`not a filter column: ${String(name)}`);
  return `t.${name}`;
}

export function filterSql(f: TaskFilter, params: Array<string | number>, d: Dialect): string {
  if ('all' in f) return f.all.length === 0 ? '1 = 1' : `(${f.all.map((p) => filterSql(p, params, d)).join(' AND ')})`;
  if ('any' in f) return f.any.length === 0 ? '1 = 0' : `(${f.any.map((p) => filterSql(p, params, d)).join(' OR ')})`;
  if ('ids' in f) {
    if (f.ids.length === 0) return '1 = 0';
    // One text for any number of ids (rather than a placeholder each): a page of a search reads
    // up to 1000, and each count would have been a statement of its own.
    params.push(idList(f.ids));
    return d.inIdList('t.id');
  }
  if ('empty' in f) return `${column(f.column)} ${f.empty ? '=' : '<>'} ''`;
  if ('folded' in f) {
    const holds = d.foldedHolds(column(f.column), f.folded);
    params.push(...holds.params);
    return holds.sql;
  }
  if (!OPERATORS.has(f.op)) throw new Error(`not a filter operator: ${String(f.op)}`);
  params.push(f.value);
  return `${column(f.column)} ${f.op} CAST(? AS BIGINT)`;
}

/** The columns of `names`, for a select list (the same fixed list). */
export function filterColumns(names: readonly FilterColumn[]): string {
  return names.map(column).join(', ');
}

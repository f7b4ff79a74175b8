/**
 * Counts the statements a benchmark server sends to its database, so that the bench can print
 * statements (SQLite) and round trips (PostgreSQL) per call. Installed only in the benchmark's
 * child processes, by wrapping the drivers' own methods; a count costs an increment.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export const counted = { statements: 0 };

export function countStatements(): void {
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = statementProto[method] as (...a: unknown[]) => unknown;
    statementProto[method] = function counting(this: unknown, ...args: unknown[]) {
      counted.statements++;
      return original.apply(this, args);
    };
  }
  const dbProto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const exec = dbProto['exec'] as (...a: unknown[]) => unknown;
  dbProto['exec'] = function countingExec(this: unknown, ...args: unknown[]) {
    counted.statements++;
    return exec.apply(this, args);
  };
  const clientProto = pg.Client.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const query = clientProto['query'] as (...a: unknown[]) => unknown;
  clientProto['query'] = function countingQuery(this: unknown, ...args: unknown[]) {
    counted.statements++;
    return query.apply(this, args);
  };
}

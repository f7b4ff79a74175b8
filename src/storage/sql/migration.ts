/**
 * One numbered step of a schema. Each database has its own list (its own SQL dialect); the same
 * version means the same tables on both, which the PostgreSQL/SQLite parity test checks.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import { openStore } from '../storage/open.js';
import type { Store } from '../storage/store.js';

/** Bad arguments or settings: one line on stderr, exit code 2, nothing written. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An account named on the command line that does not exist: a usage error of the command line. */
export class NoSuchAccount extends Error {
  override name = 'NoSuchAccount';
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export function args(argv: string[], options: ParseArgsConfig['options']): Values {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: options ?? {}, strict: true, allowPositionals: true });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    return values as Values;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}

export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function list(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.database);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** One JSON value per line on stdout: what every command prints. */
export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A command of a group: its usage line(s) and what it runs. */
export interface Verb {
  readonly usage: string;
  run(rest: string[], config: () => Config): Promise<number>;
}

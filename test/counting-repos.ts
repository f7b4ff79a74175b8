import type { Repos, Store } from '../src/storage/store.js';

/** Calls of repository methods, by `repository.method`. */
export type Counted = Map<string, number>;

/** `repo` (named `name`) with every method call counted into `counted`. */
export function counting<T extends object>(name: string, repo: T, counted: Counted): T {
  return new Proxy(repo, {
    get: (target, key, receiver) => {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const k = `${name}.${String(key)}`;
        counted.set(k, (counted.get(k) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * Runs `call` with the repositories `names` of every transaction of `store` counting their
 * method calls: what a write call costs in statements, whatever the database.
 */
export async function repositoryCalls(store: Store, names: ReadonlyArray<keyof Repos>, call: () => Promise<unknown>): Promise<Counted> {
  const s = store as { transaction: (fn: (tx: Repos) => Promise<unknown>) => Promise<unknown> };
  const real = s.transaction.bind(s);
  const counted: Counted = new Map();
  s.transaction = (fn) => real((tx) => fn({ ...tx, ...Object.fromEntries(names.map((n) => [n, counting(n, tx[n], counted)])) }));
  try {
    await call();
  } finally {
    s.transaction = real;
  }
  return counted;
}

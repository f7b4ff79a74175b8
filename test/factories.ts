import { PREF_NAMES, type NewAccount, type Prefs, type Task } from '../src/storage/store.js';

/**
 * A new account named `${tag}${n}` (its userid and e-mail address) with every preference at 0,
 * for tests that need an owner for their records; `over` changes any field.
 */
export function newAccount(tag: string, n: number, over: Partial<NewAccount> = {}): NewAccount {
  const name = `${tag}${n}`;
  return {
    userid: name,
    email: `${name}@example.org`,
    emailKey: `${name}@example.org`,
    passwordHash: 'x',
    alias: '',
    pro: 0,
    prefs: Object.fromEntries(PREF_NAMES.map((p) => [p, 0])) as Prefs,
    createdAt: 1000,
    ...over,
  };
}

/**
 * A complete stored task, as the tasks endpoints would write a new one, with `over` applied.
 * For tests and the benchmark, which fill accounts through the store directly.
 */
export function newTask(id: number, over: Partial<Task> = {}): Task {
  return {
    id,
    title: `Task ${id}`,
    tag: '',
    folder: 0,
    context: 0,
    goal: 0,
    location: 0,
    parent: 0,
    ord: 0,
    duedate: 0,
    duedatemod: 0,
    startdate: 0,
    duetime: null,
    starttime: null,
    remind: 0,
    repeat: '',
    repeatIndex: 1,
    status: 0,
    length: 0,
    priority: 0,
    star: 0,
    modified: 1_000,
    completed: 0,
    added: 1_000,
    timer: 0,
    timeron: 0,
    note: '',
    previous: 0,
    via: 3,
    ...over,
  };
}

/**
 * The statements (on PostgreSQL, round trips) of each write call of 50 items: add, edit and delete
 * of tasks, notes and outlines (the documents' one service serves lists and rows alike), each once
 * on a fresh server, counted by the server's own statement counter (counters.ts). Not a speed: a
 * count, which issue 15 asks to be constant, whatever the number of items.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { stopChild } from './child.js';
import type { ServerReady } from './server.js';

const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));
const N = 50;

export interface CensusRow {
  readonly call: string;
  readonly database: 'SQLite' | 'PostgreSQL';
  readonly statements: number;
}

type Item = Record<string, unknown>;
const ids = (from: number): number[] => Array.from({ length: N }, (_, i) => from + i);

/** Counts each call's statements on one fresh server (tasks and notes 1–200 seeded). */
export async function census(postgresUrl: string | undefined): Promise<CensusRow[]> {
  const database = postgresUrl ? 'PostgreSQL' : 'SQLite';
  const env = { ...process.env, ...(postgresUrl && { BENCH_DB: 'postgres', BENCH_DATABASE_URL: postgresUrl }) };
  const setup = { tasks: 200, notes: 200, probe: { method: 'GET', url: '/3/account/get.php' } };
  const child = fork(SERVER, ['tickler', JSON.stringify(setup)], { env, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const [ready] = (await once(child, 'message')) as [ServerReady];
    const statements = async (): Promise<number> => {
      child.send('cpu');
      const [m] = (await once(child, 'message')) as [{ statements: number }];
      return m.statements;
    };
    /** Sends the call; each of its N items must succeed, or the count would be of errors. */
    const count = async (path: string, param: string, items: unknown[]): Promise<{ statements: number; answer: Item[] }> => {
      const before = await statements();
      const res = await fetch(`http://127.0.0.1:${ready.port}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.tokens?.[0] ?? ''}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `${param}=${encodeURIComponent(JSON.stringify(items))}`,
      });
      const answer = (await res.json()) as Item[];
      const after = await statements();
      if (!Array.isArray(answer) || answer.length !== items.length || answer.some((a) => 'errorCode' in a)) throw new Error(`${path} failed: ${JSON.stringify(answer).slice(0, 200)}`);
      return { statements: after - before, answer };
    };
    const rows: CensusRow[] = [];
    const note = (call: string, n: number): void => void rows.push({ call, database, statements: n });
    note('tasks/add', (await count('/3/tasks/add.php', 'tasks', ids(1).map((i) => ({ title: `New ${i}`, star: 1 })))).statements);
    note('tasks/edit', (await count('/3/tasks/edit.php', 'tasks', ids(1).map((id) => ({ id, title: `Edited ${id}`, priority: 3 })))).statements);
    note('tasks/delete', (await count('/3/tasks/delete.php', 'tasks', ids(51))).statements);
    note('notes/add', (await count('/3/notes/add.php', 'notes', ids(1).map((i) => ({ title: `New ${i}`, text: 'A few words' })))).statements);
    note('notes/edit', (await count('/3/notes/edit.php', 'notes', ids(1).map((id) => ({ id, title: `Edited ${id}` })))).statements);
    note('notes/delete', (await count('/3/notes/delete.php', 'notes', ids(51))).statements);
    const outlines = await count('/3/outlines/add.php', 'outlines', ids(1).map((i) => ({ title: `Outline ${i}`, ref: `o${i}` })));
    note('outlines/add', outlines.statements);
    const edits = outlines.answer.map((o) => ({ id: o['id'], version: o['version'], title: `Edited ${String(o['id'])}` }));
    note('outlines/edit', (await count('/3/outlines/edit.php', 'outlines', edits)).statements);
    note('outlines/delete', (await count('/3/outlines/delete.php', 'outlines', outlines.answer.map((o) => o['id']))).statements);
    return rows;
  } finally {
    await stopChild(child);
  }
}

/**
 * The floor of tasks/add and notes/add: a node:http server that writes the 50 rows of each call
 * with the database driver alone, into Tickler's own table (same schema, same indexes), in one
 * transaction, as durably as Tickler does (SQLite: WAL, synchronous=FULL; PostgreSQL: a commit),
 * and answers the body Tickler answered. No parsing, no checks, no stamps: what is left when
 * everything Tickler adds is taken away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parseDatabaseUrl } from '../src/config.js';
import { openStore } from '../src/storage/open.js';
import { freshSchema } from '../test/database.js';
import { newAccount, newTask } from '../test/factories.js';
import type { ServerReady } from './server.js';

const ROWS = 50;

/** A table the floor writes: its columns (after user_pk) and one row's values, as Tickler stores the bench's batch. */
interface RawTable {
  readonly table: string;
  readonly columns: readonly string[];
  readonly row: (userPk: number, id: number, now: number) => Array<string | number | null>;
}

const TASKS: RawTable = {
  table: 'tasks',
  columns: [
    'id', 'title', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'ord', 'duedate', 'duedatemod', 'startdate', 'duetime',
    'starttime', 'remind', 'repeat', 'repeat_index', 'status', 'length', 'priority', 'star', 'modified', 'completed', 'added', 'timer',
    'timeron', 'note', 'previous', 'via',
  ],
  row(userPk, id, now) {
    const t = newTask(id, { title: `Batch task ${id % ROWS}`, note: 'A note of a realistic length, with a line or two.', priority: 2, star: 1, tag: 'work', modified: now, added: now - (now % 86400) + 43200, via: 3 });
    return [userPk, t.id, t.title, t.tag, t.folder, t.context, t.goal, t.location, t.parent, t.ord, t.duedate, t.duedatemod, t.startdate, t.duetime,
      t.starttime, t.remind, t.repeat, t.repeatIndex, t.status, t.length, t.priority, t.star, t.modified, t.completed, t.added, t.timer, t.timeron,
      t.note, t.previous, t.via];
  },
};

const NOTES: RawTable = {
  table: 'notes',
  columns: ['id', 'title', 'text', 'folder', 'private', 'added', 'modified'],
  row: (userPk, id, now) => [userPk, id, `Batch note ${id % ROWS}`, 'A note of a realistic length,\nwith a line or two, and a list:\n- one\n- two', 0, 0, now, now],
};

/** The floors by the name bench/server.ts is given (argv[3]). */
export const RAW_TABLES: Readonly<Record<string, RawTable>> = { tasks: TASKS, notes: NOTES };

export async function rawAddServer(t: RawTable, body: string, ready: (msg: ServerReady) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-raw-'));
  const postgres = process.env['BENCH_DB'] === 'postgres';
  const schema = postgres ? await freshSchema(process.env['BENCH_DATABASE_URL'] as string, { durable: true }) : undefined;
  const url = schema?.url ?? `sqlite:${join(dir, 'raw.db')}`;
  // The schema and an owner for the rows, made by Tickler; the measured writes are the driver's.
  const store = await openStore(parseDatabaseUrl(url, 'DATABASE_URL', 2));
  await store.migrate();
  const owner = (await store.transaction((tx) => tx.accounts.create(newAccount('raw', 1)))).pk;
  await store.close();
  let nextId = 1;
  let write: () => Promise<void>;
  let close: () => Promise<void>;
  if (postgres) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const placeholders = Array.from({ length: ROWS }, (_, r) => `(${Array.from({ length: t.columns.length + 1 }, (_, c) => `$${r * (t.columns.length + 1) + c + 1}`).join(', ')})`).join(', ');
    const sql = `INSERT INTO ${t.table} (user_pk, ${t.columns.join(', ')}) VALUES ${placeholders}`;
    write = async () => {
      const first = nextId;
      nextId += ROWS;
      const now = Math.floor(Date.now() / 1000);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(sql, Array.from({ length: ROWS }, (_, i) => t.row(owner, first + i, now)).flat());
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    close = () => pool.end();
  } else {
    const db = new Database(join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const insert = db.prepare(`INSERT INTO ${t.table} (user_pk, ${t.columns.join(', ')}) VALUES (?, ${t.columns.map(() => '?').join(', ')})`);
    write = async () => {
      const now = Math.floor(Date.now() / 1000);
      db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < ROWS; i++) insert.run(...t.row(owner, nextId++, now));
      db.exec('COMMIT');
    };
    close = async () => void db.close();
  }
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      write().then(
        () => {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.once('disconnect', () => {
    server.close();
    void close()
      .then(() => schema?.drop())
      .then(() => rmSync(dir, { recursive: true, force: true }));
  });
}

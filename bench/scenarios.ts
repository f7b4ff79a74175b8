import { BENCH_LIST_ID, NEW_STAMP, OLD_STAMP } from './seed.js';
import type { TicklerSetup } from './server.js';

/** A request of a scenario; `{{NAME}}` in its path or body is filled with what its server reported (ServerReady.substitutions). */
export interface BenchRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Scenario {
  readonly name: string;
  /** Scenarios of a group are compared with the group's `bare` baseline. */
  readonly group: string;
  readonly server: 'tickler' | 'bare' | 'fastify' | 'raw-add' | 'radicale';
  readonly setup?: TicklerSetup;
  readonly env?: Record<string, string>;
  readonly request: BenchRequest;
  /**
   * Requests that each connection sends in turn instead of `request` (CalDAV's listing then its
   * multiget: one sync is the pair). Figures stay per request.
   */
  readonly sequence?: readonly BenchRequest[];
  /** For a baseline: answer what this Tickler scenario answered. */
  readonly bodyOf?: string;
  /** For `raw-add`: the table its driver writes (bench/raw-add.ts, RAW_TABLES); tasks by default. */
  readonly rawTable?: 'tasks' | 'notes';
}

const ALL_FIELDS =
  'tag,folder,context,goal,location,parent,children,order,duedate,duedatemod,startdate,duetime,starttime,remind,repeat,status,length,priority,star,added,timer,timeron,note,meta,previous,shared,sharedowner,sharedwith,addedby,via,attachment';

export const ACCOUNT_GET = 'account/get, valid token (defaults, log off)';
export const ACCOUNT_BARE = 'bare node:http, same JSON (baseline)';
export const TASKS_1000 = 'tasks/get, 1000 tasks, all fields';
export const TASKS_1000_XML = 'tasks/get, 1000 tasks, all fields, in XML';
export const AFTER_BIG = 'after= fetch of 10 changed, account of 80,000';
export const AFTER_SMALL = 'after= fetch of 10 changed, account of 100';
export const ADD_50 = 'tasks/add, batches of 50';
export const ADD_RAW = 'the same 50 rows by the driver alone, one transaction, as durable (floor)';
export const NOTES_1000 = 'notes/get, 1000 notes';
export const NOTES_ADD_50 = 'notes/add, batches of 50';
export const NOTES_ADD_RAW = 'the same 50 notes by the driver alone, one transaction, as durable (floor)';
export const ROWS_1000 = 'rows/get, 1000 rows of a list';
export const OUTLINES_200 = 'outlines/get, 200 outlines of 20 nodes';
export const LISTS_1000 = 'lists/get, 1000 lists of 4 columns';

const accountGet = { method: 'GET', path: '/3/account/get.php' } as const;
const accountProbe: TicklerSetup = { probe: { method: 'GET', url: '/3/account/get.php' } };
const tasksGet = { method: 'GET', path: `/3/tasks/get.php?num=1000&fields=${ALL_FIELDS}` } as const;
const tasksGetXml = { method: 'GET', path: `/3/tasks/get.php?num=1000&f=xml&fields=${ALL_FIELDS}` } as const;
const afterGet = { method: 'GET', path: `/3/tasks/get.php?after=${(OLD_STAMP + NEW_STAMP) / 2}&fields=${ALL_FIELDS}` } as const;
const batch = `tasks=${encodeURIComponent(JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ title: `Batch task ${i}`, note: 'A note of a realistic length, with a line or two.', priority: 2, star: 1, tag: 'work' }))))}`;
const add = { method: 'POST', path: '/3/tasks/add.php', body: batch } as const;
/** Saved searches at 80,000 tasks: one the database decides alone, one whose text rule the code decides. */
const SEARCHES = [
  { bool: 'All', search: { root: [{ field: 'star', type: 'yes', value: '' }, { field: 'duedate', type: 'after', value: '2026-01-20' }], '1': [{ field: 'priority', type: 'is', value: '3' }, { field: 'status', type: 'is', value: '4' }] } },
  { bool: 'All', search: { root: [{ field: 'title', type: 'contains', value: 'task 12' }, { field: 'checked', type: 'no', value: '' }] } },
] as const;
const searchByDatabase = { method: 'GET', path: `/3/tasks/get.php?search=1&fields=${ALL_FIELDS}` } as const;
const searchByCode = { method: 'GET', path: `/3/tasks/get.php?search=2&fields=${ALL_FIELDS}` } as const;
const pageOfBig = { method: 'GET', path: `/3/tasks/get.php?num=1000&fields=${ALL_FIELDS}` } as const;
export const SEARCH_DB = 'search= decided by the database, account of 80,000';
export const SEARCH_CODE = 'search= with a text rule (decided in code), account of 80,000';
export const PAGE_BIG = 'tasks/get of 1000 tasks (no search), account of 80,000';
const searchSetup = (url: string): TicklerSetup => ({ tasks: 80_000, searches: SEARCHES, probe: { method: 'GET', url } });
const notesGet = { method: 'GET', path: '/3/notes/get.php?num=1000' } as const;
const rowsGet = { method: 'GET', path: `/3/rows/get.php?list=${BENCH_LIST_ID}&num=1000` } as const;
const outlinesGet = { method: 'GET', path: '/3/outlines/get.php' } as const;
const listsGet = { method: 'GET', path: '/3/lists/get.php' } as const;
const noteBatch = `notes=${encodeURIComponent(JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ title: `Batch note ${i}`, text: 'A note of a realistic length,\nwith a line or two, and a list:\n- one\n- two' }))))}`;
const notesAdd = { method: 'POST', path: '/3/notes/add.php', body: noteBatch } as const;

export const DAV_FULL = 'CalDAV: PROPFIND Depth 1, then calendar-multiget of all, 1000 tasks (each request)';
export const DAV_SYNC_BIG = 'CalDAV: sync-collection of one change, calendar of 80,000';
export const DAV_SYNC_SMALL = 'CalDAV: sync-collection of one change, calendar of 100';
export const DAV_SYNC_1000 = 'CalDAV: sync-collection of one change, calendar of 1000';
export const RADICALE_FULL = 'Radicale: the same PROPFIND and calendar-multiget, 1000 to-dos (each request)';
export const RADICALE_SYNC = 'Radicale: sync-collection of one change, 1000 to-dos';
export const FEED_1000 = 'changes.php from the beginning, 1000 tasks';
export const FEED_BIG = 'changes.php after one change, account of 80,000';
export const FEED_SMALL = 'changes.php after one change, account of 100';

const calendar = '{{CAL}}';
const davListing = { method: 'PROPFIND', path: calendar, headers: { depth: '1', 'content-type': 'application/xml' }, body: '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>' };
const multigetBody = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${Array.from({ length: 1000 }, (_, i) => `<d:href>${calendar}tickler-${i + 1}.ics</d:href>`).join('')}</c:calendar-multiget>`;
const davMultiget = { method: 'REPORT', path: calendar, headers: { 'content-type': 'application/xml' }, body: multigetBody };
const davSync = {
  method: 'REPORT',
  path: calendar,
  headers: { depth: '1', 'content-type': 'application/xml' },
  body: '<d:sync-collection xmlns:d="DAV:"><d:sync-token>{{SYNC_TOKEN}}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>',
};
const davSetup = (tasks: number, oneChange: boolean, probe: { method: string; path: string; body: string; headers: Readonly<Record<string, string>> }): TicklerSetup => ({
  tasks,
  dav: true,
  oneChange,
  probe: { method: probe.method, url: probe.path, payload: probe.body, headers: probe.headers },
});
const feedAll = { method: 'GET', path: '/3/sync/changes.php?num=1000' } as const;
const feedAfter = { method: 'GET', path: '/3/sync/changes.php?cursor={{CURSOR}}' } as const;

export const SCENARIOS: readonly Scenario[] = [
  { group: 'account/get', name: ACCOUNT_BARE, server: 'bare', request: accountGet, bodyOf: ACCOUNT_GET },
  { group: 'account/get', name: ACCOUNT_GET, server: 'tickler', setup: accountProbe, request: accountGet },
  { group: 'account/get', name: 'plain Fastify, same JSON (framework floor)', server: 'fastify', request: accountGet, bodyOf: ACCOUNT_GET },
  // Eight accounts in turn: reads that arrive together share a statement on PostgreSQL, and one
  // account's reads would all share one row, which the many accounts of a server do not.
  {
    group: 'account/get',
    name: 'account/get, account cache off, 8 accounts in turn',
    server: 'tickler',
    setup: { ...accountProbe, accounts: 8 },
    env: { ACCOUNT_CACHE_SECONDS: '0' },
    request: accountGet,
  },
  {
    group: 'account/get',
    name: 'account/get, account and token caches off',
    server: 'tickler',
    setup: accountProbe,
    env: { ACCOUNT_CACHE_SECONDS: '0', TOKEN_CACHE_SECONDS: '0' },
    request: accountGet,
  },
  {
    group: 'account/get',
    name: 'account/get, access log on (LOG_LEVEL=info, the default)',
    server: 'tickler',
    setup: accountProbe,
    env: { LOG_LEVEL: 'info' },
    request: accountGet,
  },

  { group: 'tasks/get', name: 'bare node:http, same 1000 tasks (baseline)', server: 'bare', request: tasksGet, bodyOf: TASKS_1000 },
  { group: 'tasks/get', name: TASKS_1000, server: 'tickler', setup: { tasks: 1000, probe: { method: 'GET', url: tasksGet.path } }, request: tasksGet },
  { group: 'tasks/get', name: TASKS_1000_XML, server: 'tickler', setup: { tasks: 1000, probe: { method: 'GET', url: tasksGetXml.path } }, request: tasksGetXml },

  { group: 'incremental sync', name: 'bare node:http, same 10 tasks (baseline)', server: 'bare', request: afterGet, bodyOf: AFTER_SMALL },
  { group: 'incremental sync', name: AFTER_BIG, server: 'tickler', setup: { tasks: 80_000, changed: 10, probe: { method: 'GET', url: afterGet.path } }, request: afterGet },
  { group: 'incremental sync', name: AFTER_SMALL, server: 'tickler', setup: { tasks: 100, changed: 10, probe: { method: 'GET', url: afterGet.path } }, request: afterGet },

  { group: 'saved search', name: 'bare node:http, same tasks (baseline)', server: 'bare', request: searchByDatabase, bodyOf: SEARCH_DB },
  { group: 'saved search', name: SEARCH_DB, server: 'tickler', setup: searchSetup(searchByDatabase.path), request: searchByDatabase },
  { group: 'saved search', name: SEARCH_CODE, server: 'tickler', setup: searchSetup(searchByCode.path), request: searchByCode },
  { group: 'saved search', name: PAGE_BIG, server: 'tickler', setup: searchSetup(pageOfBig.path), request: pageOfBig },

  { group: 'tasks/add', name: 'bare node:http, same answer (baseline)', server: 'bare', request: add, bodyOf: ADD_50 },
  // Spread over 8 accounts: even a fast run stays far below 80,000 tasks per account.
  { group: 'tasks/add', name: ADD_50, server: 'tickler', setup: { accounts: 8, probe: { method: 'POST', url: add.path, payload: batch } }, request: add },
  { group: 'tasks/add', name: ADD_RAW, server: 'raw-add', request: add, bodyOf: ADD_50 },

  { group: 'notes/get', name: 'bare node:http, same 1000 notes (baseline)', server: 'bare', request: notesGet, bodyOf: NOTES_1000 },
  { group: 'notes/get', name: NOTES_1000, server: 'tickler', setup: { notes: 1000, probe: { method: 'GET', url: notesGet.path } }, request: notesGet },

  { group: 'rows/get', name: 'bare node:http, same 1000 rows (baseline)', server: 'bare', request: rowsGet, bodyOf: ROWS_1000 },
  { group: 'rows/get', name: ROWS_1000, server: 'tickler', setup: { rows: 1000, probe: { method: 'GET', url: rowsGet.path } }, request: rowsGet },

  { group: 'outlines/get', name: 'bare node:http, same 200 outlines (baseline)', server: 'bare', request: outlinesGet, bodyOf: OUTLINES_200 },
  { group: 'outlines/get', name: OUTLINES_200, server: 'tickler', setup: { outlines: { total: 200, nodes: 20 }, probe: { method: 'GET', url: outlinesGet.path } }, request: outlinesGet },

  { group: 'lists/get', name: 'bare node:http, same 1000 lists (baseline)', server: 'bare', request: listsGet, bodyOf: LISTS_1000 },
  { group: 'lists/get', name: LISTS_1000, server: 'tickler', setup: { lists: 1000, probe: { method: 'GET', url: listsGet.path } }, request: listsGet },

  { group: 'caldav', name: 'bare node:http, same multiget (baseline)', server: 'bare', request: davMultiget, bodyOf: DAV_FULL },
  { group: 'caldav', name: DAV_FULL, server: 'tickler', setup: davSetup(1000, false, davMultiget), request: davListing, sequence: [davListing, davMultiget] },
  { group: 'caldav', name: DAV_SYNC_BIG, server: 'tickler', setup: davSetup(80_000, true, davSync), request: davSync },
  { group: 'caldav', name: DAV_SYNC_SMALL, server: 'tickler', setup: davSetup(100, true, davSync), request: davSync },
  { group: 'caldav', name: DAV_SYNC_1000, server: 'tickler', setup: davSetup(1000, true, davSync), request: davSync },
  // The same 1,000 to-dos in Radicale, when it is installed (bench/radicale.ts).
  { group: 'caldav', name: RADICALE_FULL, server: 'radicale', setup: { tasks: 1000, probe: { method: 'GET', url: '/' } }, request: davListing, sequence: [davListing, davMultiget] },
  { group: 'caldav', name: RADICALE_SYNC, server: 'radicale', setup: { tasks: 1000, oneChange: true, probe: { method: 'GET', url: '/' } }, request: davSync },

  { group: 'change feed', name: 'bare node:http, same 1000 changes (baseline)', server: 'bare', request: feedAll, bodyOf: FEED_1000 },
  { group: 'change feed', name: FEED_1000, server: 'tickler', setup: { tasks: 1000, probe: { method: 'GET', url: feedAll.path } }, request: feedAll },
  { group: 'change feed', name: FEED_BIG, server: 'tickler', setup: { tasks: 80_000, oneChange: true, probe: { method: 'GET', url: feedAfter.path } }, request: feedAfter },
  { group: 'change feed', name: FEED_SMALL, server: 'tickler', setup: { tasks: 100, oneChange: true, probe: { method: 'GET', url: feedAfter.path } }, request: feedAfter },

  { group: 'notes/add', name: 'bare node:http, same answer (baseline)', server: 'bare', request: notesAdd, bodyOf: NOTES_ADD_50 },
  // Spread over 8 accounts, as tasks/add is: no account reaches MAX_NOTES during a run.
  { group: 'notes/add', name: NOTES_ADD_50, server: 'tickler', setup: { accounts: 8, probe: { method: 'POST', url: notesAdd.path, payload: noteBatch } }, request: notesAdd },
  { group: 'notes/add', name: NOTES_ADD_RAW, server: 'raw-add', rawTable: 'notes', request: notesAdd, bodyOf: NOTES_ADD_50 },
];

export const ON_POSTGRES = ' [PostgreSQL]';

/** Each Tickler scenario again on PostgreSQL (a fresh schema per server), beside its SQLite run. */
export function withPostgres(scenarios: readonly Scenario[]): Scenario[] {
  return scenarios.flatMap((s) =>
    (s.server === 'tickler' || s.server === 'raw-add') && !s.env?.['LOG_LEVEL'] && !s.env?.['TOKEN_CACHE_SECONDS']
      ? [s, { ...s, name: `${s.name}${ON_POSTGRES}`, env: { ...s.env, BENCH_DB: 'postgres' } }]
      : [s],
  );
}

/**
 * The scenarios of a round in the order they run. A baseline serves what a Tickler scenario
 * answered, so it runs right after that scenario: the machine's speed drifts within minutes, and
 * when every baseline ran after every Tickler scenario, the two sides of a ratio were measured up
 * to twenty minutes apart (account/get ÷ bare node:http read 0.56 in one full run and 0.80 in a
 * group run the same day).
 */
export function runOrder(scenarios: readonly Scenario[]): Scenario[] {
  const tickler = scenarios.filter((s) => s.server === 'tickler');
  const order = tickler.flatMap((t) => [t, ...scenarios.filter((b) => b.server !== 'tickler' && b.bodyOf === t.name)]);
  return [...order, ...scenarios.filter((s) => !order.includes(s))];
}

import type { List, ListRow, Note, Outline, OutlineNode, Store, Task } from '../src/storage/store.js';
import { newTask } from '../test/factories.js';

/** A realistic task: most fields set, a note of a few lines, so "all fields" output is not trivial. */
export function seededTask(id: number, modified: number): Task {
  return newTask(id, {
    title: `Task ${id}: call the plumber about the kitchen sink`,
    tag: 'home, errands',
    duedate: 1_767_268_800 + (id % 30) * 86400,
    duedatemod: id % 4,
    duetime: id % 2 ? 9 * 3600 : null,
    remind: 60,
    repeat: id % 5 === 0 ? 'FREQ=WEEKLY;BYDAY=MO' : '',
    status: id % 11,
    length: 30,
    priority: (id % 5) - 1,
    star: id % 2,
    modified,
    completed: id % 7 === 0 ? 1_767_268_800 : 0,
    added: 1_764_590_400,
    note: 'Ask about the price first.\nThen book a morning slot & confirm by e-mail <before Friday>.',
  });
}

export const OLD_STAMP = 1_000_000;
export const NEW_STAMP = 2_000_000;

/**
 * Fills an account directly through the store (the API would take minutes for 80,000 tasks):
 * `total` tasks, of which the last `changed` carry a later `modified` stamp.
 */
export async function seedTasks(store: Store, userPk: number, total: number, changed: number): Promise<void> {
  if (total === 0) return;
  await store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(userPk, 'task', total);
    await tx.tasks.insertMany(userPk, Array.from({ length: total }, (_, i) => seededTask(first + i, i >= total - changed ? NEW_STAMP : OLD_STAMP)));
    await tx.accounts.touch(userPk, ['lastedit_task'], NEW_STAMP);
  });
}

/** A realistic note: a title and a few paragraphs, so that get's output is not trivial. */
function note(id: number): Note {
  return {
    id,
    title: `Note ${id}: meeting with the contractor`,
    text: 'Agenda:\n- kitchen sink & tiles\n- the <garden> fence\nDecisions: start on Monday, pay half up front.\n'.repeat(3),
    folder: 0,
    private: 0,
    added: 1_764_590_400,
    modified: OLD_STAMP,
  };
}

/** Fills an account with `total` notes directly through the store. */
export async function seedNotes(store: Store, userPk: number, total: number): Promise<void> {
  if (total === 0) return;
  await store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(userPk, 'note', total);
    for (let i = 0; i < total; i++) await tx.documents.insert(userPk, 'note', note(first + i));
    await tx.accounts.touch(userPk, ['lastedit_note'], OLD_STAMP);
  });
}

/** A 24-hex-digit id as the API makes them (a stamp, then a counter here instead of random digits). */
const hexId = (n: number): string => `69000000${n.toString(16).padStart(16, '0')}`;

/** The list that seedList fills: a text, a number, a checkbox and a pick-one column. */
export const BENCH_LIST_ID = hexId(1);

/** The four columns of the bench's lists: a text, a number, a checkbox and a pick-one column. */
const BENCH_COLUMNS: List['cols'] = [
  { id: 1, title: 'Item', type: 19, width: 200, sort: 0 },
  { id: 2, title: 'Quantity', type: 13, width: 80, sort: 0 },
  { id: 3, title: 'Done', type: 1, width: 60, sort: 0 },
  { id: 4, title: 'Shop', type: 10, width: 120, sort: 0, choices: ['market', 'bakery', 'hardware store'] },
];

/** A list of the bench's four columns, without rows. */
const benchList = (id: string, ref: string, title: string): List => ({
  id,
  ref,
  title,
  keywords: 'home',
  note: 'Things to fetch this week.',
  version: 1,
  added: 1_764_590_400,
  modified: OLD_STAMP,
  cols: BENCH_COLUMNS,
  nextCol: 5,
  rows: 0,
});

/**
 * One list of four columns with `rows` rows directly through the store (rows/get reads a list's
 * rows, up to 1000 a call): each row a short text, a number, a checkbox and a choice.
 */
export async function seedList(store: Store, userPk: number, rows: number): Promise<void> {
  if (rows === 0) return;
  const list = benchList(BENCH_LIST_ID, 'bench', 'Groceries & errands');
  const row = (i: number): ListRow => ({
    id: hexId(1000 + i),
    list: BENCH_LIST_ID,
    ref: `r${i}`,
    version: 1,
    added: 1_764_590_400,
    modified: OLD_STAMP,
    cells: { c1: `Item ${i}: "fresh" bread & <butter>`, c2: i % 12, c3: i % 2, c4: (['market', 'bakery', 'hardware store'] as const)[i % 3] as string },
  });
  await store.transaction(async (tx) => {
    await tx.documents.insert(userPk, 'list', list);
    await tx.documents.insertMany(userPk, 'row', Array.from({ length: rows }, (_, i) => row(i)));
    await tx.accounts.touch(userPk, ['lastedit_list'], OLD_STAMP);
  });
}

/** `total` lists of the bench's four columns, without rows, directly through the store (lists/get reads up to 1000). */
export async function seedLists(store: Store, userPk: number, total: number): Promise<void> {
  if (total === 0) return;
  await store.transaction(async (tx) => {
    await tx.documents.insertMany(userPk, 'list', Array.from({ length: total }, (_, i) => benchList(hexId(300_000 + i), `l${i}`, `List ${i}: groceries & "errands"`)));
    await tx.accounts.touch(userPk, ['lastedit_list'], OLD_STAMP);
  });
}

/** `total` outlines, each a tree of `nodes` nodes (three levels), directly through the store. */
export async function seedOutlines(store: Store, userPk: number, total: number, nodes: number): Promise<void> {
  if (total === 0) return;
  const tree = (): OutlineNode[] => {
    let id = 0;
    const level = (parent: number, n: number, depth: number): OutlineNode[] =>
      Array.from({ length: n }, (_, i) => {
        const nodeId = ++id;
        const children = depth < 2 && id < nodes ? level(nodeId, Math.min(3, nodes - id), depth + 1) : [];
        return { id: nodeId, parent_id: parent, content: `Step ${nodeId}: check the <fuse> box & "reset"`, checked: nodeId % 2, position: i + 1, children };
      });
    return level(0, Math.ceil(nodes / 4), 0);
  };
  const count = (ns: readonly OutlineNode[]): number => ns.reduce((n, x) => n + 1 + count(x.children), 0);
  const outline = (i: number): Outline => {
    const children = tree();
    return {
      id: hexId(100_000 + i),
      ref: `o${i}`,
      title: `Outline ${i}: the move`,
      keywords: 'home, plans',
      note: 'Who does what, in order.',
      hidden: 0,
      version: 1,
      added: 1_764_590_400,
      modified: OLD_STAMP,
      nodes: { count: count(children), updated_at: OLD_STAMP, children },
    };
  };
  await store.transaction(async (tx) => {
    await tx.documents.insertMany(userPk, 'outline', Array.from({ length: total }, (_, i) => outline(i)));
    await tx.accounts.touch(userPk, ['lastedit_outline'], OLD_STAMP);
  });
}

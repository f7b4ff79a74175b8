import type { Note, Store, Task } from '../src/storage/store.js';
import { newTask } from '../test/factories.js';

/** A realistic task: most fields set, a note of a few lines, so "all fields" output is not trivial. */
function task(id: number, modified: number): Task {
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
    await tx.tasks.insertMany(userPk, Array.from({ length: total }, (_, i) => task(first + i, i >= total - changed ? NEW_STAMP : OLD_STAMP)));
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

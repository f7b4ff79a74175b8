import type { V3Client } from '../../src/features/moving/v3-client.js';

/**
 * An account holding every kind of record, written through the API as clients write them: the
 * source of the import tests. `tasks` tasks in all, with every field, subtasks (one whose parent
 * has a later id), repeats, completed ones, a completed repeating task's copy (`previous`), and
 * links to notes, outlines and lists.
 */
export async function seedAccount(client: V3Client, tasks: number): Promise<void> {
  const post = async (path: string, params: Record<string, string>): Promise<unknown> => client.json(path, params);
  const ids = async (path: string, params: Record<string, string>): Promise<number> => ((await post(path, params)) as Array<{ id: number }>)[0]?.id as number;
  const work = await ids('/3/folders/add.php', { name: 'Work', private: '1' });
  const home = await ids('/3/folders/add.php', { name: 'Home' });
  const old = await ids('/3/folders/add.php', { name: 'Old' });
  await post('/3/folders/edit.php', { id: String(old), archived: '1' });
  const contexts = [await ids('/3/contexts/add.php', { name: 'Office' }), await ids('/3/contexts/add.php', { name: 'Errands', private: '1' })];
  const life = await ids('/3/goals/add.php', { name: 'Live well', level: '0', note: 'the big one' });
  const year = await ids('/3/goals/add.php', { name: 'Run a marathon', level: '1', contributes: String(life), private: '1' });
  const goals = [life, year, await ids('/3/goals/add.php', { name: 'Run 10 km', level: '2', contributes: String(year) })];
  const place = await ids('/3/locations/add.php', { name: 'Gym', description: 'by the river', lat: '48.8566', lon: '2.3522' });
  const notes = (await post('/3/notes/add.php', {
    notes: JSON.stringify([
      { title: 'Recipe', text: 'Flour\nEggs, "fresh"\n😀', folder: home },
      { title: 'Plain' },
      { title: 'Secret', private: 1, folder: work },
    ]),
  })) as Array<{ id: number }>;
  const outlines = (await post('/3/outlines/add.php', {
    outlines: JSON.stringify([
      { title: 'Plan', ref: 'o1', keywords: 'a, b', note: 'n', hidden: 1, nodes: [{ content: 'one', checked: 1, children: [{ content: 'one.a' }, { content: 'one.b', children: [{ content: 'deep' }] }] }, { content: 'two' }] },
      { title: 'Empty', ref: 'o2' },
    ]),
  })) as Array<{ id: string }>;
  const lists = (await post('/3/lists/add.php', {
    lists: JSON.stringify([
      {
        title: 'Groceries',
        ref: 'l1',
        note: 'weekly',
        cols: [
          { title: 'Item', type: 19 },
          { title: 'Qty', type: 13, width: 50 },
          { title: 'Price', type: 2 },
          { title: 'Aisle', type: 10, choices: ['fruit', 'dairy'] },
          { title: 'Done', type: 1 },
          { title: 'By', type: 3 },
        ],
      },
      { title: 'Books', ref: 'l2', cols: [{ title: 'Title', type: 18 }, { title: 'Tags', type: 9, choices: ['novel', 'essay', 'poetry'] }, { title: 'Stars', type: 16 }] },
    ]),
  })) as Array<{ id: string; version: number; cols: Array<{ id: number }> }>;
  const [groceries, books] = lists as [(typeof lists)[0], (typeof lists)[0]];
  // A column removed: the list's next column id is past the ids its rows use.
  await post('/3/lists/edit.php', { lists: JSON.stringify([{ id: groceries.id, version: groceries.version, cols: groceries.cols.filter((c) => c.id !== 6) }]) });
  await post('/3/rows/add.php', {
    rows: JSON.stringify([
      { list: groceries.id, ref: 'r1', cells: { c1: 'Milk', c2: 2, c3: 1.2, c4: 'dairy', c5: 1 } },
      { list: groceries.id, ref: 'r2', cells: { c1: 'Apples', c4: 'fruit' } },
      { list: books.id, ref: 'r3', cells: { c1: 'Essays', c2: ['essay', 'novel'], c3: 4 } },
    ]),
  });

  // Tasks, 50 a call, every field in use somewhere.
  const first: number[] = [];
  for (let n = 0; n < tasks; n += 50) {
    const batch = Array.from({ length: Math.min(50, tasks - n) }, (_, j) => {
      const i = n + j;
      const day = 1767268800 + (i % 400) * 86400;
      return {
        title: `Task ${i} ${i % 97 === 0 ? 'with "quotes", commas and ✓' : ''}`.trim(),
        folder: [0, work, home, old][i % 4],
        context: i % 3 === 0 ? contexts[i % 2] : 0,
        goal: i % 5 === 0 ? goals[i % 3] : 0,
        location: i % 11 === 0 ? place : 0,
        tag: i % 6 === 0 ? 'a, b' : '',
        duedate: i % 2 === 0 ? day : 0,
        duetime: i % 4 === 0 ? day + 3600 * (i % 24) : 0,
        startdate: i % 8 === 0 ? day - 86400 * 2 : 0,
        starttime: i % 16 === 0 ? day - 86400 * 2 + 1800 : 0,
        duedatemod: i % 4,
        remind: i % 10 === 0 ? 60 : 0,
        repeat: i % 13 === 0 ? 'FREQ=WEEKLY;BYDAY=MO,WE' : i % 17 === 0 ? 'FREQ=MONTHLY;INTERVAL=2;FROMCOMP' : '',
        status: i % 11,
        length: i % 7 === 0 ? 45 : 0,
        priority: (i % 5) - 1,
        star: i % 9 === 0 ? 1 : 0,
        completed: i % 10 === 3 ? day : 0,
        note: i % 7 === 1 ? `line one\nline two of ${i}` : '',
        ...(i === 1 && { attach: [{ kind: 'note', id: notes[0]?.id }, { kind: 'outline', id: outlines[0]?.id }, { kind: 'list', id: books.id }] }),
      };
    });
    const added = (await post('/3/tasks/add.php', { tasks: JSON.stringify(batch) })) as Array<{ id: number }>;
    first.push(...added.map((t) => t.id));
  }
  // Subtasks: of task 0 (added later, higher ids), and task 2 moved under the last task (a parent with a later id).
  const parent = first[0] as number;
  await post('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Sub one', parent }, { title: 'Sub two', parent, note: 'x' }]) });
  await post('/3/tasks/edit.php', { tasks: JSON.stringify([{ id: first[2], parent: first[first.length - 1] }]) });
  // A repeating task completed with reschedule: a completed copy whose `previous` is the task.
  await post('/3/tasks/edit.php', { tasks: JSON.stringify([{ id: first[26], completed: 1767355200 }]), reschedule: '1' });
  // Deleted records leave tombstones the first import has nothing to do with.
  await post('/3/tasks/delete.php', { tasks: JSON.stringify([first[5]]) });
}

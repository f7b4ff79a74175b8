import type { FieldSpec, Row } from '../../features/organizers/organizer-fields.js';
import { KINDS, type KindSpec } from '../../features/organizers/organizer-kinds.js';

/**
 * How the pages show folders, contexts, goals and locations: one description per kind, read by one
 * page registrar (organize.routes.ts) and one set of views (views/organize.ts), as organizer-kinds
 * drives the API. The rules themselves (names, limits, what a delete does to tasks) stay in
 * src/features/organizers/: the pages call the same services, and these words describe them.
 */

/** What a delete or archive would touch, counted before it happens (organize-usage.ts). */
export interface Usage {
  /** Tasks (completed ones included) that point at the record. */
  readonly tasks: number;
  /** Folders: notes filed in it. */
  readonly notes: number;
  /** Goals: other goals that contribute to it. */
  readonly contributors: number;
}

/** How one settable field is shown. */
export interface WebField {
  readonly spec: FieldSpec;
  readonly label: string;
  readonly hint?: string;
  /** Choices: the text of each value. */
  readonly choices?: ReadonlyArray<readonly [number, string]>;
}

export interface WebKind {
  readonly spec: KindSpec;
  /** Path of the list page (/folders); a record's page is `${path}/${id}`. */
  readonly path: string;
  /** Heading of the list page. */
  readonly title: string;
  /** One sentence under the heading: what the kind is for. */
  readonly intro: string;
  /** Fields of the forms, in the kind's order; `archived` is not among them (its own button). */
  readonly fields: readonly WebField[];
  readonly archivable: boolean;
  /** Folders: moved up and down the list (ord; features/organizers/folder-order.ts). */
  readonly orderable?: boolean;
  /** Words under a record's name in the list (level, place, …). */
  readonly summary?: (row: Row, all: readonly Row[]) => string;
  /** What a delete does, sentence by sentence, from the cascade in organizers.service.ts and the kind's afterDelete. */
  readonly deleteEffects: (usage: Usage) => string[];
  /** What archiving does (archivable kinds). */
  readonly archiveEffects?: (usage: Usage) => string[];
}

export const GOAL_LEVELS: ReadonlyArray<readonly [number, string]> = [
  [0, 'Lifetime'],
  [1, 'Long-term'],
  [2, 'Short-term'],
];

const PRIVATE_HINT = 'A private record is never shared with people you share tasks with.';

/** "3 tasks", "1 task", "no task". */
export function count(n: number, noun: string): string {
  return n === 0 ? `no ${noun}` : n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
}

/** "No task points at this folder." / "1 task points …" / "3 tasks point …" */
export function pointing(n: number, noun: string): string {
  return n === 0 ? `No task points at this ${noun}.` : `${count(n, 'task')} ${n === 1 ? 'points' : 'point'} at this ${noun}.`;
}

/** What happens to the tasks of a deleted record: organizers.service.ts deleteOrganizer (tasks.clearReference). */
function tasksAfterDelete(noun: string, usage: Usage): string {
  if (usage.tasks === 0) return `No task is in this ${noun}: no task changes.`;
  return `${count(usage.tasks, 'task')} (completed ones included) ${usage.tasks === 1 ? 'points' : 'point'} at this ${noun}: ${
    usage.tasks === 1 ? 'it is kept, with' : 'they are kept, with'
  } no ${noun}. Apps see ${usage.tasks === 1 ? 'that task' : 'those tasks'} as edited at their next sync.`;
}

const FINAL = 'The name can be used again at once; the deletion cannot be undone.';

function spec(kind: string): KindSpec {
  const found = KINDS.find((k) => k.kind === kind);
  if (!found) throw new Error(`no organiser kind ${kind}`);
  return found;
}

function fieldsOf(s: KindSpec, shown: Readonly<Record<string, Omit<WebField, 'spec'>>>): WebField[] {
  return s.fields.filter((f) => f.name !== 'archived').map((f) => {
    const web = shown[f.name];
    if (!web) throw new Error(`the ${s.noun} field ${f.name} has no label`);
    return { spec: f, ...web };
  });
}

const FOLDERS: WebKind = {
  spec: spec('folder'),
  path: '/folders',
  title: 'Folders',
  intro: 'Folders hold tasks and notes: each task and note is in one folder, or in none.',
  fields: fieldsOf(spec('folder'), { private: { label: 'Private', hint: PRIVATE_HINT } }),
  archivable: true,
  orderable: true,
  deleteEffects: (u) => [
    tasksAfterDelete('folder', u),
    u.notes === 0 ? 'No note is filed in it.' : `${count(u.notes, 'note')} filed in it ${u.notes === 1 ? 'is' : 'are'} kept, in no folder.`,
    FINAL,
  ],
  archiveEffects: (u) => [
    `${
      u.tasks + u.notes === 0
        ? 'Nothing is filed in it'
        : `Its ${[u.tasks ? count(u.tasks, 'task') : '', u.notes ? count(u.notes, 'note') : ''].filter(Boolean).join(' and ')} stay in it, unchanged`
    }; apps show it as archived (most hide such folders from their lists).`,
    'You can restore it at any time.',
  ],
};

const CONTEXTS: WebKind = {
  spec: spec('context'),
  path: '/contexts',
  title: 'Contexts',
  intro: 'Contexts say where or how a task can be done: @phone, @office, @errands.',
  fields: fieldsOf(spec('context'), { private: { label: 'Private', hint: PRIVATE_HINT } }),
  archivable: false,
  deleteEffects: (u) => [tasksAfterDelete('context', u), FINAL],
};

const GOALS: WebKind = {
  spec: spec('goal'),
  path: '/goals',
  title: 'Goals',
  intro: 'Goals are what tasks work towards. A short-term goal can contribute to a long-term one, and a long-term goal to a lifetime one.',
  fields: fieldsOf(spec('goal'), {
    level: { label: 'Level', choices: GOAL_LEVELS },
    contributes: { label: 'Contributes to', hint: 'A goal of a higher level (lifetime above long-term above short-term), or none.' },
    private: { label: 'Private', hint: PRIVATE_HINT },
    note: { label: 'Note', hint: 'At most 32,768 bytes.' },
  }),
  archivable: true,
  summary: (row, all) => {
    const level = GOAL_LEVELS.find(([v]) => v === row['level'])?.[1] ?? '';
    const target = all.find((g) => g['id'] === row['contributes'] && row['contributes'] !== 0);
    return target ? `${level}, contributes to ${String(target['name'])}` : level;
  },
  deleteEffects: (u) => [
    tasksAfterDelete('goal', u),
    u.contributors === 0 ? 'No goal contributes to it.' : `${count(u.contributors, 'goal')} that ${u.contributors === 1 ? 'contributes' : 'contribute'} to it will contribute to none.`,
    FINAL,
  ],
  archiveEffects: (u) => [
    `${u.tasks === 0 ? 'No task points at it' : `Its ${count(u.tasks, 'task')} keep it`}, and goals can still contribute to it; apps show it as archived.`,
    'You can restore it at any time.',
  ],
};

const LOCATIONS: WebKind = {
  spec: spec('location'),
  path: '/locations',
  title: 'Locations',
  intro: 'Locations are places where tasks are done; apps may remind you when you are near one.',
  fields: fieldsOf(spec('location'), {
    description: { label: 'Description', hint: 'At most 32,768 bytes.' },
    lat: { label: 'Latitude', hint: 'Decimal degrees, from -90 to 90 (0 when not known).' },
    lon: { label: 'Longitude', hint: 'Decimal degrees, from -180 to 180 (0 when not known).' },
  }),
  archivable: false,
  summary: (row) => (row['lat'] === 0 && row['lon'] === 0 ? '' : `${String(row['lat'])}, ${String(row['lon'])}`),
  deleteEffects: (u) => [tasksAfterDelete('location', u), FINAL],
};

export const WEB_KINDS: readonly WebKind[] = [FOLDERS, CONTEXTS, GOALS, LOCATIONS];

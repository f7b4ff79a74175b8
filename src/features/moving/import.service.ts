import type { Deps } from '../../deps.js';
import { unixSeconds } from '../../lib/clock.js';
import type { DocumentKind, ImportKind, StampName, Stamps } from '../../storage/store.js';
import { deleteDocumentsGone, importDocuments } from './import-documents.js';
import { importOrganizers } from './import-organizers.js';
import { importAuth, Report, type ImportScope, type Tally } from './import-report.js';
import type { ImportSource, PagedKind } from './import-source.js';
import { deleteTasksGone, importTasks, resolvePendingTasks } from './import-tasks.js';

/**
 * bin/tickler import: copies what a source holds into a local account, the way a sync client
 * would (docs/moving.md). The kinds go in the order their references need (organisers, then notes,
 * outlines, lists and rows, then tasks, which point at all of them). Each run starts from the
 * source's stamps that the last complete run reached: a kind whose stamps did not move is not read
 * at all, the others are read `after=` them, deletions at the source are mirrored. Progress is in
 * the database (import_runs, the id map): an interrupted run resumes where it stopped, on any
 * instance, and records already copied at the source's `modified` are passed over.
 */

export interface ImportOptions {
  readonly dryRun?: boolean;
  /** Told after each page: the kind, records looked at so far in this run, and the total when known. */
  readonly onProgress?: (kind: ImportKind, done: number, total: number | undefined) => void;
}

export interface ImportSummary {
  readonly source: string;
  readonly dryRun: boolean;
  /** Whether this run continued an interrupted one. */
  readonly resumed: boolean;
  readonly kinds: Readonly<Record<ImportKind, Tally>>;
  readonly refusals: Report['refusals'];
  readonly warnings: readonly string[];
}

type Step = ImportKind | `${PagedKind}-deleted` | 'task-pending';

/** What import_runs keeps: the stamps of the last complete run, and the run under way. */
interface RunState {
  done: Stamps | null;
  run: { stamps: Stamps | null; finished: Step[]; cursor: { step: Step; start: number; list?: string } | null } | null;
}

const STEPS: ReadonlyArray<{ step: Step; stamps: readonly StampName[] }> = [
  { step: 'folder', stamps: ['lastedit_folder'] },
  { step: 'context', stamps: ['lastedit_context'] },
  { step: 'goal', stamps: ['lastedit_goal'] },
  { step: 'location', stamps: ['lastedit_location'] },
  { step: 'note', stamps: ['lastedit_note'] },
  { step: 'note-deleted', stamps: ['lastdelete_note'] },
  { step: 'outline', stamps: ['lastedit_outline'] },
  { step: 'outline-deleted', stamps: ['lastedit_outline'] },
  { step: 'list', stamps: ['lastedit_list'] },
  { step: 'row', stamps: ['lastedit_list'] },
  { step: 'list-deleted', stamps: ['lastedit_list'] },
  { step: 'row-deleted', stamps: ['lastedit_list'] },
  { step: 'task', stamps: ['lastedit_task'] },
  { step: 'task-deleted', stamps: ['lastdelete_task'] },
  { step: 'task-pending', stamps: [] },
];

/** Pages of one paged kind restarted from the first when the source changed while it was read. */
const MAX_RESTARTS = 3;

export async function runImport(deps: Deps, userPk: number, source: ImportSource, options: ImportOptions = {}): Promise<ImportSummary> {
  const report = new Report();
  const scope: ImportScope = { deps, auth: importAuth(userPk), source: source.key, report, dryRun: options.dryRun === true, partial: source.partial === true };
  const saved = await loadState(deps, userPk, source.key);
  const now = await source.stamps();
  const resumed = saved.run !== null;
  const run = saved.run ?? { stamps: now, finished: [], cursor: null };
  const save = async (): Promise<void> => {
    if (!scope.dryRun) await deps.store.transaction((tx) => tx.imports.setRun(userPk, source.key, JSON.stringify({ done: saved.done, run }), unixSeconds(deps.clock)));
  };
  await save();
  const since = (name: StampName): number => saved.done?.[name] ?? 0;
  // A kind whose stamps did not move since the last complete run has nothing new to read.
  const unmoved = (names: readonly StampName[]): boolean => saved.done !== null && now !== null && names.length > 0 && names.every((n) => now[n] === since(n));
  // The cursor of an interrupted run still points at the same records only if the source did not change since.
  const sameAsRun = (names: readonly StampName[]): boolean => now !== null && run.stamps !== null && names.every((n) => now[n] === run.stamps?.[n]);
  const progress = (kind: ImportKind, total?: number): void => options.onProgress?.(kind, report.seen(kind), total);

  for (const { step, stamps } of STEPS) {
    if (run.finished.includes(step) || unmoved(stamps)) continue;
    const resumeAt = run.cursor?.step === step && sameAsRun(stamps) ? run.cursor : null;
    switch (step) {
      case 'folder':
      case 'context':
      case 'goal':
      case 'location':
        await importOrganizers(scope, step, await source.organizers(step));
        progress(step);
        break;
      case 'note':
      case 'outline':
      case 'list':
      case 'task':
        await pages(step, since(stamps[0] as StampName), resumeAt?.start ?? 0);
        break;
      case 'row': {
        // Any change to a list's rows moves the list's modified: the lists read after the stamp are those to read rows of.
        const lists: string[] = [];
        for (let start = 0; ; ) {
          const page = await source.page('list', { after: since('lastedit_list'), start });
          lists.push(...page.records.map((r) => String(r['id'])));
          start += page.records.length;
          if (page.records.length === 0 || (page.total ?? Infinity) <= start || page.records.length < 1000) break;
        }
        const from = resumeAt?.list ? Math.max(0, lists.indexOf(resumeAt.list)) : 0;
        for (const list of lists.slice(from)) {
          run.cursor = { step, start: 0, list };
          await save();
          await pages('row', since('lastedit_list'), 0, list);
        }
        break;
      }
      case 'note-deleted':
      case 'outline-deleted':
      case 'list-deleted':
      case 'row-deleted':
      case 'task-deleted': {
        // A first run has copied nothing that could have been deleted since.
        if (saved.done === null) break;
        const kind = step.slice(0, -'-deleted'.length) as PagedKind;
        const gone = await source.deleted(kind, since(stamps[0] as StampName));
        if (kind === 'task') await deleteTasksGone(scope, gone.map((g) => g.id));
        else await deleteDocumentsGone(scope, kind, gone);
        break;
      }
      case 'task-pending':
        await resolvePendingTasks(scope);
        break;
    }
    run.finished.push(step);
    run.cursor = null;
    await save();
  }

  for (const w of source.warnings?.() ?? []) report.warn(w);
  if (!scope.dryRun) {
    // The next run reads what changed after the stamps this one started from (docs/sync.md, step 4).
    await deps.store.transaction((tx) => tx.imports.setRun(userPk, source.key, JSON.stringify({ done: run.stamps, run: null } satisfies RunState), unixSeconds(deps.clock)));
  }
  return { source: source.key, dryRun: scope.dryRun, resumed, kinds: report.tallies, refusals: report.refusals, warnings: report.warnings };

  /**
   * Every page of a kind changed after `after`, from `start`. If the source's count changes
   * between pages (something was added or deleted meanwhile, which shifts the pages), the kind
   * is read again from the first page: what was copied already is passed over by its stamp.
   */
  async function pages(kind: PagedKind, after: number, from: number, list?: string): Promise<void> {
    let start = from;
    let total: number | undefined;
    for (let restarts = 0; ; ) {
      const page = await source.page(kind, { after, start, ...(list !== undefined && { list }) });
      if (total !== undefined && page.total !== undefined && page.total !== total && restarts < MAX_RESTARTS) {
        restarts++;
        total = undefined;
        start = 0;
        continue;
      }
      total ??= page.total;
      if (page.records.length === 0) return;
      if (kind === 'task') await importTasks(scope, page.records);
      else await importDocuments(scope, kind as DocumentKind, page.records, list);
      start += page.records.length;
      run.cursor = { step: kind, start, ...(list !== undefined && { list }) };
      await save();
      progress(kind, total);
      if ((total !== undefined && start >= total) || page.records.length < 1000) return;
    }
  }
}

async function loadState(deps: Deps, userPk: number, key: string): Promise<RunState> {
  const text = await deps.store.read.imports.run(userPk, key);
  return text ? (JSON.parse(text) as RunState) : { done: null, run: null };
}

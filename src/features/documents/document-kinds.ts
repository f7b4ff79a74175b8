import { classifyId } from '../../http/params.js';
import type { List, ListRow, Note, Outline } from '../../storage/store.js';
import { isItem, problem, readFlag, readText } from './document-fields.js';
import { codesFrom, firstProblem, headerOf, readHeader, readTitle, take, type DocumentSpec } from './document-spec.js';
import { readCell, readColumns, refitCells } from './list-columns.js';
import { readNodes } from './outline-nodes.js';

export type { AnyDocument, DocumentSpec, Values, WriteScope } from './document-spec.js';

/**
 * Everything that differs between notes, outlines, lists and rows, as data and a few functions.
 * One generic service (documents.read.ts, documents.write.ts), presenter and route registrar work from these
 * descriptions. docs/notes-and-lists.md documents each value; change both together.
 */

const NOTE_CODES = codesFrom(700, false);
const NOTES: DocumentSpec = {
  kind: 'note',
  plural: 'notes',
  noun: 'note',
  scope: 'notes',
  codes: NOTE_CODES,
  idForm: 'integer',
  versioned: false,
  keepsRef: false,
  editStamp: 'lastedit_note',
  deleteStamp: 'lastdelete_note',
  pageSummary: true,
  inList: false,
  maxRecords: (l) => l.notes,
  async read(item, stored, { tx, userPk }) {
    const out: Record<string, unknown> = {};
    const c = NOTE_CODES;
    const r = firstProblem(
      () => readTitle(out, item, stored === null, 255, c, 'note'),
      () => take(out, item, 'text', (v) => readText(v, 'text', { bytes: 62_000 }, c.malformed)),
      () => take(out, item, 'private', (v) => readFlag(v, 'private', c.malformed)),
    );
    if ('problem' in r) return r;
    if (Object.hasOwn(item, 'folder')) {
      const folder = item['folder'];
      const id = classifyId(folder);
      if (id === 'invalid') return problem(c.malformed, 'Malformed request: folder must be 0 or a folder id');
      // 0 is "no folder"; an archived folder is a valid one, as for tasks.
      if (id !== 'none' && !(await tx.organizers.exists(userPk, 'folder', id))) return problem(707, `Invalid folder id: ${id}`);
      out['folder'] = id === 'none' ? 0 : id;
    }
    return { value: out };
  },
  create: (v, { id, stamp }): Note => ({
    id: id as number,
    title: v['title'] as string,
    text: (v['text'] as string | undefined) ?? '',
    folder: (v['folder'] as number | undefined) ?? 0,
    private: (v['private'] as number | undefined) ?? 0,
    added: stamp,
    modified: stamp,
  }),
  merge: (stored, v, stamp) => ({ ...(stored as Note), ...v, modified: stamp }),
};

const OUTLINE_CODES = codesFrom(800, true);
const OUTLINES: DocumentSpec = {
  kind: 'outline',
  plural: 'outlines',
  noun: 'outline',
  scope: 'outlines',
  codes: OUTLINE_CODES,
  idForm: 'hex',
  versioned: true,
  keepsRef: true,
  editStamp: 'lastedit_outline',
  deleteStamp: 'lastedit_outline',
  pageSummary: false,
  inList: false,
  maxRecords: (l) => l.outlines,
  async read(item, stored, { limits }) {
    const out: Record<string, unknown> = {};
    const c = OUTLINE_CODES;
    const r = firstProblem(
      () => readHeader(out, item, stored === null, c, 'outline'),
      () => take(out, item, 'hidden', (v) => readFlag(v, 'hidden', c.malformed)),
      () => take(out, item, 'nodes', (v) => readNodes(v, limits.outlineNodes)),
    );
    return 'problem' in r ? r : { value: out };
  },
  create: (v, { id, ref, stamp }): Outline => {
    const tree = v['nodes'] as { count: number; children: Outline['nodes']['children'] } | undefined;
    return {
      id: id as string,
      ref,
      ...headerOf(v),
      hidden: (v['hidden'] as number | undefined) ?? 0,
      version: 1,
      added: stamp,
      modified: stamp,
      nodes: { count: tree?.count ?? 0, updated_at: tree && tree.count > 0 ? stamp : 0, children: tree?.children ?? [] },
    };
  },
  merge: (stored, v, stamp) => {
    const o = stored as Outline;
    const tree = v['nodes'] as { count: number; children: Outline['nodes']['children'] } | undefined;
    const nodes = tree && JSON.stringify(tree.children) !== JSON.stringify(o.nodes.children) ? { count: tree.count, updated_at: stamp, children: tree.children } : o.nodes;
    return { ...o, ...v, nodes, version: o.version + 1, modified: stamp };
  },
};

const LIST_CODES = codesFrom(900, true);
const LISTS: DocumentSpec = {
  kind: 'list',
  plural: 'lists',
  noun: 'list',
  scope: 'lists',
  codes: LIST_CODES,
  idForm: 'hex',
  versioned: true,
  keepsRef: true,
  editStamp: 'lastedit_list',
  deleteStamp: 'lastedit_list',
  pageSummary: false,
  inList: false,
  maxRecords: (l) => l.lists,
  async read(item, stored, { limits }) {
    const out: Record<string, unknown> = {};
    const r = readHeader(out, item, stored === null, LIST_CODES, 'list');
    if ('problem' in r) return r;
    if (Object.hasOwn(item, 'cols')) {
      const list = stored as List | null;
      const cols = readColumns(item['cols'], list?.cols ?? [], list?.nextCol ?? 1, limits.listColumns);
      if ('problem' in cols) return cols;
      out['cols'] = cols.value.cols;
      out['nextCol'] = cols.value.nextCol;
    }
    return { value: out };
  },
  create: (v, { id, ref, stamp }): List => ({
    id: id as string,
    ref,
    ...headerOf(v),
    version: 1,
    added: stamp,
    modified: stamp,
    cols: (v['cols'] as List['cols'] | undefined) ?? [],
    nextCol: (v['nextCol'] as number | undefined) ?? 1,
    rows: 0,
  }),
  merge: (stored, v, stamp) => {
    const l = stored as List;
    return { ...l, ...v, version: l.version + 1, modified: stamp };
  },
  // Cells of removed columns go, and values a changed column no longer allows are emptied: each
  // row that changes is an edit of it (new version, the call's stamp).
  async afterWrite({ tx, userPk }, changes, stamp) {
    for (const { next, stored } of changes) {
      const list = next as List;
      if (!stored || JSON.stringify((stored as List).cols) === JSON.stringify(list.cols)) continue;
      const { items } = await tx.documents.page(userPk, 'row', { list: list.id, start: 0, num: Number.MAX_SAFE_INTEGER });
      for (const row of items) {
        const cells = refitCells(row.cells, list.cols);
        if (JSON.stringify(cells) !== JSON.stringify(row.cells)) await tx.documents.update(userPk, 'row', { ...row, cells, version: row.version + 1, modified: stamp });
      }
    }
  },
};

const ROW_CODES = codesFrom(1000, true);
const ROWS: DocumentSpec = {
  kind: 'row',
  plural: 'rows',
  noun: 'row',
  scope: 'lists',
  codes: ROW_CODES,
  idForm: 'hex',
  versioned: true,
  keepsRef: true,
  editStamp: 'lastedit_list',
  deleteStamp: 'lastedit_list',
  pageSummary: false,
  inList: true,
  maxRecords: (l) => l.listRows,
  async read(item, stored, _scope, list) {
    if (!Object.hasOwn(item, 'cells')) return { value: {} };
    const sent = item['cells'];
    if (!isItem(sent)) return problem(ROW_CODES.malformed, 'Malformed request: cells must be an object keyed c<column id>');
    const cols = list?.cols ?? [];
    const cells: Record<string, unknown> = { ...((stored as ListRow | null)?.cells ?? {}) };
    for (const [key, value] of Object.entries(sent)) {
      const column = cols.find((c) => `c${c.id}` === key);
      if (!column) return problem(1013, `Invalid cell: the list has no column ${JSON.stringify(key)} (cells are keyed c<column id>)`);
      const r = readCell(value, column);
      if ('problem' in r) return r;
      if (r.value === undefined) delete cells[key];
      else cells[key] = r.value;
    }
    // Stored in the order of the list's columns, so that the same cells are the same value.
    return { value: { cells: Object.fromEntries(cols.filter((c) => Object.hasOwn(cells, `c${c.id}`)).map((c) => [`c${c.id}`, cells[`c${c.id}`]])) } };
  },
  create: (v, { id, ref, stamp, list }): ListRow => ({
    id: id as string,
    list,
    ref,
    version: 1,
    added: stamp,
    modified: stamp,
    cells: (v['cells'] as ListRow['cells'] | undefined) ?? {},
  }),
  merge: (stored, v, stamp) => {
    const w = stored as ListRow;
    return { ...w, ...v, version: w.version + 1, modified: stamp };
  },
  // Any change to a list's rows (add, edit; delete too, in the service) moves the list's modified,
  // not its version: lists/get after= then names the lists whose rows to fetch (docs/sync.md).
  async afterWrite({ tx, userPk }, changes, stamp) {
    for (const list of new Set(changes.map(({ next }) => (next as ListRow).list))) await tx.documents.touchList(userPk, list, stamp);
  },
};

export const DOCUMENT_KINDS: readonly DocumentSpec[] = [NOTES, OUTLINES, LISTS, ROWS];

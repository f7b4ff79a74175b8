import type { ItemError } from '../../errors.js';
import { joinedBytes } from '../../http/joined-bytes.js';
import { errorNode, type ApiBody, type PublicRecord, type PublicValue, type TextBody } from '../../http/reply.js';
import { writeXmlNode, type XmlNode } from '../../http/xml.js';
import { orderedColumn } from '../../storage/documents-port.js';
import type { DocumentTombstone, List, ListRow, Note, Outline, OutlineNode, RecordForm } from '../../storage/store.js';
import type { AnyDocument, DocumentSpec } from './document-kinds.js';
import type { DeletedResult, DocumentResult } from './documents.write.js';

/**
 * Public records of notes, outlines, lists and rows. Strict clients reject unknown keys, so each
 * carries exactly the kind's keys, in the order of the hosted service's documentation (a list's
 * keys and its columns' as in its example answer). The XML tree is built from the same record.
 */

function nodeRecord(n: OutlineNode): PublicRecord {
  return { id: n.id, parent_id: n.parent_id, content: n.content, checked: n.checked, position: n.position, children: n.children.map(nodeRecord) };
}

const RECORDS: Readonly<Record<DocumentSpec['kind'], (d: AnyDocument) => PublicRecord>> = {
  note: (d) => {
    const n = d as Note;
    return { id: n.id, title: n.title, modified: n.modified, added: n.added, folder: n.folder, private: n.private, text: n.text };
  },
  outline: (d) => {
    const o = d as Outline;
    return {
      id: o.id,
      title: o.title,
      keywords: o.keywords,
      note: o.note,
      added: o.added,
      modified: o.modified,
      hidden: o.hidden,
      version: o.version,
      nodes: { count: o.nodes.count, updated_at: o.nodes.updated_at, children: o.nodes.children.map(nodeRecord) },
    };
  },
  list: (d) => {
    const l = d as List;
    const cols = l.cols.map(orderedColumn);
    return { id: l.id, added: l.added, modified: l.modified, title: l.title, cols, version: l.version, note: l.note, keywords: l.keywords, rows: l.rows };
  },
  row: (d) => {
    const r = d as ListRow;
    return { id: r.id, added: r.added, modified: r.modified, version: r.version, cells: r.cells as PublicRecord };
  },
};

export function documentRecord(spec: DocumentSpec, d: AnyDocument, ref?: string | number): PublicRecord {
  const record = RECORDS[spec.kind](d);
  return ref === undefined ? record : { ...record, ref };
}

/** Element names of the members of list-valued fields; any other list's members are `<value>`. */
const ITEM_NAMES: Readonly<Record<string, string>> = { cols: 'col', children: 'node', choices: 'choice' };

/** A value as an element: records and lists nest, with the members' names above. */
function xmlOf(name: string, value: PublicValue): XmlNode {
  if (Array.isArray(value)) {
    const item = ITEM_NAMES[name] ?? 'value';
    return { name, children: (value as readonly PublicValue[]).map((v) => xmlOf(item, v)) };
  }
  if (value !== null && typeof value === 'object') {
    return { name, children: Object.entries(value as PublicRecord).map(([k, v]) => xmlOf(k, v)) };
  }
  return { name, text: value as string | number | null };
}

function itemsXml(spec: DocumentSpec, items: ReadonlyArray<PublicRecord | ItemError>): XmlNode[] {
  return items.map((it) => ('errorCode' in it && 'errorDesc' in it ? errorNode(it as ItemError) : xmlOf(spec.noun, it as PublicRecord)));
}

/**
 * get: notes `[{num,total}, note…]` (XML `<notes num total>`); outlines, lists and rows a bare
 * array, and `null` when there is none, as the hosted service answers (XML: an empty root).
 */
export function pageBody(spec: DocumentSpec, records: readonly PublicRecord[], total: number): ApiBody {
  if (spec.pageSummary) {
    const summary = { num: records.length, total };
    return { json: [summary, ...records], xml: () => ({ name: spec.plural, attrs: Object.entries(summary), children: itemsXml(spec, records) }) };
  }
  return { json: records.length === 0 ? null : records, xml: () => ({ name: spec.plural, children: itemsXml(spec, records) }) };
}

/**
 * get in JSON from records the database wrote (listDocumentsWritten): pageBody's JSON, only
 * joined, as bytes (joinedBytes). Never asked for XML: that form is built by pageBody.
 */
export function writtenPageBody(spec: DocumentSpec, rows: readonly string[], total: number): TextBody {
  const json = (): string | Buffer => {
    if (spec.pageSummary) return joinedBytes('[', [JSON.stringify({ num: rows.length, total }), ...rows], ',', ']');
    return rows.length === 0 ? 'null' : joinedBytes('[', rows, ',', ']');
  };
  const xml = (): never => {
    throw new Error('writtenPageBody holds JSON records');
  };
  return { text: { json, xml } };
}

/** add and edit: results in submission order, inline errors among them. */
export function resultsBody(spec: DocumentSpec, results: readonly DocumentResult[]): ApiBody {
  const items = results.map((r) => ('record' in r ? documentRecord(spec, r.record, r.ref) : r));
  return { json: items, xml: () => ({ name: spec.plural, children: itemsXml(spec, items) }) };
}

/** delete: `[{id}…]` (rows `[{id, list}…]`) with inline errors; XML `<deleted><id>…</id></deleted>` (rows `<row>`). */
export function deleteBody(spec: DocumentSpec, results: readonly DeletedResult[]): ApiBody {
  return {
    json: results,
    xml: () => ({
      name: 'deleted',
      children: results.map((r) => ('errorCode' in r ? errorNode(r) : r.list !== undefined ? xmlOf(spec.noun, { id: r.id, list: r.list }) : { name: 'id', text: r.id })),
    }),
  };
}

/** deleted: `[{num}, {id, stamp}…]` (rows also `list`); XML `<deleted num><note><id/><stamp/></note>…`. */
export function tombstonesBody(spec: DocumentSpec, tombstones: readonly DocumentTombstone[]): ApiBody {
  const records = tombstones.map((t): PublicRecord => (spec.inList ? { id: t.id, list: t.list, stamp: t.stamp } : { id: t.id, stamp: t.stamp }));
  return {
    json: [{ num: records.length }, ...records],
    xml: () => ({ name: 'deleted', attrs: [['num', records.length]], children: records.map((r) => xmlOf(spec.noun, r)) }),
  };
}

/**
 * One record as its kind's get writes it, as text (the change feed's records); a row with its
 * list's id after its own fields, as rows/delete names it.
 */
export function documentRecordText(spec: DocumentSpec, d: AnyDocument, form: RecordForm): string {
  const own = documentRecord(spec, d);
  const record = spec.kind === 'row' ? { ...own, list: (d as ListRow).list } : own;
  return form === 'json' ? JSON.stringify(record) : writeXmlNode(xmlOf(spec.noun, record));
}

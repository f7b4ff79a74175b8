import { recordNode, type ApiBody, type PublicRecord } from '../../http/reply.js';
import { writeXmlNode } from '../../http/xml.js';
import type { RecordForm } from '../../storage/store.js';
import type { Row } from './organizer-fields.js';
import type { KindSpec } from './organizer-kinds.js';

/**
 * Public records of the four kinds. Strict clients reject unknown keys, so each record carries
 * exactly the kind's documented keys, in order; ids, flags, levels and coordinates stay JSON numbers.
 * The XML tree is built from the same record, with the few element names that differ renamed.
 */
function pick(row: Row, keys: readonly string[]): PublicRecord {
  const out: Record<string, string | number> = {};
  for (const key of keys) {
    const value = row[key];
    if (value === undefined) throw new Error(`record has no ${key}`);
    out[key] = value;
  }
  return out;
}

function xmlRecord(spec: KindSpec, record: PublicRecord): PublicRecord {
  const out: Record<string, PublicRecord[string]> = {};
  for (const [key, value] of Object.entries(record)) out[spec.xmlNames[key] ?? key] = value;
  return out;
}

function rowsBody(spec: KindSpec, rows: readonly Row[], jsonKeys: readonly string[]): ApiBody {
  return {
    json: rows.map((row) => pick(row, jsonKeys)),
    xml: () => ({ name: spec.plural, children: rows.map((row) => recordNode(spec.noun, xmlRecord(spec, pick(row, spec.fullKeys)))) }),
  };
}

/** get: every record of the kind (XML root `goals`, elements `goal`, and so on). */
export function listBodyOf(spec: KindSpec, rows: readonly Row[]): ApiBody {
  return rowsBody(spec, rows, spec.listKeys);
}

/** add and edit: a one-element array holding the record as stored. */
export function writtenBodyOf(spec: KindSpec, row: Row): ApiBody {
  return rowsBody(spec, [row], spec.fullKeys);
}

/** delete: `{"deleted": id}`, XML `<deleted>id</deleted>`. */
export function deletedBody(id: number): ApiBody {
  return { json: { deleted: id }, xml: () => ({ name: 'deleted', text: id }) };
}

/** One record as get writes it (JSON keys of get; XML every element), as text: the change feed's records. */
export function organizerRecordText(spec: KindSpec, row: Row, form: RecordForm): string {
  return form === 'json' ? JSON.stringify(pick(row, spec.listKeys)) : writeXmlNode(recordNode(spec.noun, xmlRecord(spec, pick(row, spec.fullKeys))));
}

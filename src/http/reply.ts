import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ItemError } from '../errors.js';
import { paramsOf } from './params.js';
import { renderXml, type PublicRecord, type XmlNode } from './xml.js';

export type { PublicRecord, PublicValue } from './xml.js';

/**
 * A response body in both formats. Presenters build the public record once; the helpers below
 * derive the JSON value and the XML tree from it, so the two formats cannot drift apart.
 */
export type ApiBody = RecordBody | TextBody;

/** A body as public values: JSON.stringify and the XML writer render it. */
export interface RecordBody {
  readonly json: unknown;
  /** Built only when XML was asked for. */
  readonly xml: () => XmlNode;
}

/**
 * A body its presenter writes as text itself, for large answers (tasks: compiled writers per
 * field set, docs/decisions/0007). Each format is written only when asked for.
 */
export interface TextBody {
  /** JSON as text, or as UTF-8 bytes when it was assembled from bytes (sent as they are). */
  readonly text: { readonly json: () => string | Buffer; readonly xml: () => string | Buffer };
}

export type Format = 'json' | 'xml';

export function formatOf(request: FastifyRequest): Format {
  return paramsOf(request).get('f')?.trim().toLowerCase() === 'xml' ? 'xml' : 'json';
}

/** Format from the query string alone, for errors raised before the body could be read. */
export function queryFormatOf(request: FastifyRequest): Format {
  const f = (request.query as Record<string, unknown> | undefined)?.['f'];
  return typeof f === 'string' && f.trim().toLowerCase() === 'xml' ? 'xml' : 'json';
}

/** `<name>` holding one child element per field of the record. */
export function recordNode(name: string, record: PublicRecord): XmlNode {
  return { name, record };
}

function isRecord(v: unknown): v is PublicRecord {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `<error id ref>desc</error>`: an inline item error, or (without ref) a whole response's error. */
export function errorNode(e: Omit<ItemError, 'ref'> & { readonly ref?: string | number | undefined }): XmlNode {
  return { name: 'error', attrs: e.ref === undefined ? [['id', e.errorCode]] : [['id', e.errorCode], ['ref', e.ref]], text: e.errorDesc };
}

function isItemError(v: unknown): v is ItemError {
  return isRecord(v) && typeof v['errorCode'] === 'number' && 'errorDesc' in v;
}

/** A single record: JSON object, XML root with a child per field. */
export function objectBody(root: string, record: PublicRecord): RecordBody {
  return { json: record, xml: () => recordNode(root, record) };
}

/**
 * A list: JSON array (optionally led by a summary record such as {num,total}); XML root carrying
 * the summary as attributes, with each item as an element (inline errors as <error id ref>).
 */
export function listBody(
  root: string,
  item: string,
  items: ReadonlyArray<PublicRecord | ItemError>,
  summary?: Readonly<Record<string, number>>,
): ApiBody {
  return {
    json: summary ? [summary, ...items] : items,
    xml: () => {
      const children = items.map((it) => (isItemError(it) ? errorNode(it) : recordNode(item, it as PublicRecord)));
      return summary ? { name: root, attrs: Object.entries(summary), children } : { name: root, children };
    },
  };
}

/**
 * A body answered many times over (account/get from one cached read): each format is written
 * when first asked for, then the same text is sent.
 */
export function writtenOnce(body: RecordBody): TextBody {
  let json: string | undefined;
  let xml: string | undefined;
  return { text: { json: () => (json ??= JSON.stringify(body.json)), xml: () => (xml ??= renderXml(body.xml())) } };
}

/** A body written in one format, as it is sent. */
export interface Rendered {
  readonly contentType: string;
  readonly payload: string | Buffer;
}

export function rendered(body: ApiBody, format: Format): Rendered {
  const text = 'text' in body ? body.text : undefined;
  if (format === 'xml') return { contentType: 'text/xml; charset=utf-8', payload: text ? text.xml() : renderXml((body as RecordBody).xml()) };
  return { contentType: 'application/json; charset=utf-8', payload: text ? text.json() : JSON.stringify((body as RecordBody).json) };
}

export function sendBody(request: FastifyRequest, reply: FastifyReply, body: ApiBody, format = formatOf(request)): FastifyReply {
  const { contentType, payload } = rendered(body, format);
  return reply.type(contentType).send(payload);
}

/** The XML declaration every answer starts with. */
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

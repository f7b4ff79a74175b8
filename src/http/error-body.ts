import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../errors.js';
import { errorNode, sendBody, type Format, type RecordBody } from './reply.js';
import { renderXml } from './xml.js';

/** The error record in both formats (spec 7). */
export function errorBody(e: ApiError): RecordBody {
  const json: Record<string, unknown> = { errorCode: e.code, errorDesc: e.desc };
  if (e.ref !== undefined) json['ref'] = e.ref;
  // The hosted service adds this list to error 2, and at least one client compares the body
  // byte for byte; it is harmless to the others.
  if (e.code === 2) json['errors'] = [{ status: '2', message: e.desc }];
  return { json, xml: () => errorNode({ errorCode: e.code, errorDesc: e.desc, ref: e.ref }) };
}

/** The error record as text, for an answer written without Fastify (src/http/client-errors.ts). */
export function errorText(e: ApiError, format: Format): string {
  const body = errorBody(e);
  return format === 'xml' ? renderXml(body.xml()) : JSON.stringify(body.json);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, e: ApiError, format?: Format): FastifyReply {
  reply.status(e.status);
  if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
  if (e.headers) reply.headers(e.headers);
  return sendBody(request, reply, errorBody(e), format);
}

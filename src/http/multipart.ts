import type { IncomingMessage } from 'node:http';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';

/** Raised when a body is larger than MAX_BODY_BYTES; answered 413 with code 0. */
export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
  readonly statusCode = 413;
}

type Done = (err: Error | null, body?: unknown) => void;

/** A field's text, or a file part's bytes. */
type Part = string | Buffer;

/**
 * multipart/form-data bodies (the hosted service's PHP sample sends them), parsed with busboy
 * into a plain name → text map like a url-encoded form. A content-type parser rather than the
 * multipart plugin: the plugin adds two async hooks to every request, multipart or not, which
 * measured as a large share of a cheap call's cost (docs/decisions/0007-http-performance.md).
 * File parts are kept as bytes: parameters read them as UTF-8 text (src/http/params.ts; the API has
 * no uploads, and a client may send a field so), and the app icon upload reads the bytes.
 */
export function multipartParser(limitBytes: number, onMalformed: (why: string) => Error) {
  return function parseMultipart(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limitBytes) return done(new BodyTooLarge('body too large'));
    let busboy: BusboyInstance;
    try {
      busboy = new Busboy({
        headers: request.headers as BusboyHeaders,
        // A part busboy skips (a Content-Disposition other than form-data) past the default
        // 16 KiB mark paused its parser for good: the request hung until the timeout. Every part
        // is read into memory anyway, within the body limit, so pausing buys nothing: with the
        // mark at the limit, no part ever reaches it.
        fileHwm: limitBytes + 1,
        limits: { fieldSize: limitBytes, fileSize: limitBytes, fields: 1000, files: 20, parts: 1020 },
      });
    } catch {
      return done(onMalformed('the multipart body has no boundary'));
    }
    const fields: Record<string, Part | Part[]> = Object.create(null) as Record<string, Part | Part[]>;
    // A name sent twice keeps both values, as url-encoded forms and query strings do: readers take
    // the last, and the OAuth endpoints can see the repeat (src/http/params.ts).
    const keep = (name: string, value: Part): void => {
      const had = fields[name];
      fields[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    };
    let received = 0;
    let settled = false;
    const finish = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      if (err) {
        payload.unpipe(busboy);
        payload.resume();
        return done(err);
      }
      done(null, fields);
    };
    // A client that hangs up mid-body: the request stream reports it (a client's doing, not a fault
    // of the server, so a 4xx that is not logged as a failure; nobody is left to read the answer).
    payload.on('error', () => finish(onMalformed('the request ended before its body did')));
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) finish(new BodyTooLarge('body too large'));
    });
    busboy.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) return finish(new BodyTooLarge('field too large'));
      keep(name, value);
    });
    busboy.on('file', (name: string, stream: NodeJS.ReadableStream) => {
      const chunks: Buffer[] = [];
      // A part cut short emits 'error' on its own stream, not on busboy: an emitter's 'error'
      // without a listener is thrown, and would have stopped the process.
      stream.on('error', () => finish(onMalformed('the multipart body is malformed')));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => finish(new BodyTooLarge('part too large')));
      stream.on('end', () => {
        keep(name, Buffer.concat(chunks));
      });
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      busboy.on(limit, () => finish(onMalformed('the multipart body has too many parts')));
    }
    busboy.on('error', () => finish(onMalformed('the multipart body is malformed')));
    busboy.on('finish', () => finish(null));
    payload.pipe(busboy);
  };
}

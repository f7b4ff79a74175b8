import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { StoredAnswer } from '../storage/store.js';
import { errorBody } from './error-body.js';
import { beginOnce, fingerprintOf, idempotencyKey } from './idempotency.js';
import { paramsOf } from './params.js';
import { formatOf, rendered, type ApiBody, type Format } from './reply.js';

/** Whether a call takes the Idempotency-Key path: a POST that carries the header (any value). */
export function wantsOnce(request: FastifyRequest): boolean {
  return request.method === 'POST' && request.headers['idempotency-key'] !== undefined;
}

/** An answer as it is kept: its bytes as UTF-8 text (every API answer is UTF-8 JSON or XML). */
function kept(status: number, body: ApiBody, format: Format): StoredAnswer {
  const { contentType, payload } = rendered(body, format);
  return { status, contentType, body: typeof payload === 'string' ? payload : payload.toString('utf8') };
}

/**
 * Answers an API call that carries an Idempotency-Key (docs/decisions/0022), after the guard has
 * checked its token, scope and limits: the key is checked (1105), claimed for the app, the account
 * and the key (1103, 1104, or the kept answer again with `Idempotent-Replayed: true`), the route
 * runs, and its answer is kept before it is sent. An error record the route throws is an answer
 * like any other; a server fault is not kept and gives the key up, so a retry runs afresh (the
 * call's one transaction did not commit: services write only in one, and throw out of it).
 */
export async function answerOnce(deps: Deps, request: FastifyRequest, reply: FastifyReply, path: string, run: () => ApiBody | Promise<ApiBody>): Promise<void> {
  const auth = request.auth;
  if (!auth) throw new Error(`api route ${path} ran without authentication`);
  const key = idempotencyKey(request.headers['idempotency-key']);
  const format = formatOf(request);
  const begun = await beginOnce(deps, auth, key, fingerprintOf(path, format, [request.query, request.body], paramsOf(request)));
  if ('replay' in begun) {
    reply.status(begun.replay.status).type(begun.replay.contentType).header('idempotent-replayed', 'true').send(begun.replay.body);
    return;
  }
  const { attempt } = begun;
  let answer: StoredAnswer;
  try {
    answer = kept(200, await run(), format);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) {
      await attempt.release().catch((e: unknown) => request.log.error({ err: e }, 'an Idempotency-Key could not be given up'));
      throw err;
    }
    answer = kept(err.status, errorBody(err), format);
    if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
    if (err.headers) reply.headers(err.headers);
  }
  // The answer is sent even when it could not be kept: the app has it and need not retry. A
  // retry would find the key running until its lease ends, then run again (decision 0022).
  const stored = await attempt.finish(answer).catch((e: unknown) => {
    request.log.error({ err: e }, 'the answer of an Idempotency-Key could not be kept');
    return true;
  });
  if (!stored) request.log.warn('an Idempotency-Key was taken over while its request ran past its lease; its answer is not kept');
  reply.status(answer.status).type(answer.contentType).send(answer.body);
}

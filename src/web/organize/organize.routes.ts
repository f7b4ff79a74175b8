import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import type { Row } from '../../features/organizers/organizer-fields.js';
import { moveFolder } from '../../features/organizers/folder-order.js';
import { addOrganizer, deleteOrganizer, editOrganizer, listOrganizers } from '../../features/organizers/organizers.service.js';
import { classifyId, type Params } from '../../http/params.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { confirmDeletePage, initialValues, kindListPage, recordPage, valuesOf, type Values } from '../views/organize.js';
import type { SignedIn, Web } from '../web-kit.js';
import { problemFrom, type Problem } from './inputs.js';
import { count, WEB_KINDS, type WebKind } from './organize-kinds.js';
import { usageOf } from './organize-usage.js';

/**
 * The pages of folders, contexts, goals and locations: list and add, a record's page (edit,
 * archive), a delete that says first what it will do. One registrar for the four kinds, driven by
 * organize-kinds.ts; every change goes through organizers.service.ts, as the API's do, so the
 * rules, the stamps and the cascade to tasks are the API's own.
 */
export function organizeRoutes(web: Web): void {
  for (const kind of WEB_KINDS) kindPages(web, kind);
}

/** The services' caller for the signed-in person (no app: the pages write no app's meta). */
export function webAuth(who: SignedIn): AuthContext {
  return { userPk: who.account.pk, clientPk: 0, grantId: 0, scopes: new Set(), expiresAt: Number.MAX_SAFE_INTEGER };
}

/** The text each field of the kind's forms sent, as the service reads it: an unticked box sends nothing, which means 0. */
function rawOf(kind: WebKind, p: Params): Record<string, string> {
  const raw: Record<string, string> = { name: p.get('name') ?? '' };
  for (const f of kind.fields) {
    const sent = p.get(f.spec.name);
    if (f.spec.type.type === 'flag') raw[f.spec.name] = sent === undefined || sent === '' ? '0' : sent;
    // An emptied coordinate is "not known", stored as 0 (the API would read empty as "unchanged").
    else if (f.spec.type.type === 'coordinate') raw[f.spec.name] = sent === undefined || sent.trim() === '' ? '0' : sent;
    else raw[f.spec.name] = sent ?? '';
  }
  return raw;
}

/**
 * The field a refusal is about, from the kind's own codes: no name and a taken name are the name's;
 * a malformed value names its field in the description (organizer-fields.ts readName, readField).
 */
function problemOf(kind: WebKind, err: ApiError): Problem {
  const codes = kind.spec.codes;
  if (err.code === codes.noName || err.code === codes.nameTaken) return problemFrom(err, 'name');
  if (err.code === codes.malformed) {
    if (err.desc.includes(` ${kind.spec.noun} name `)) return problemFrom(err, 'name');
    const field = kind.fields.find((f) => err.desc.startsWith(`Malformed request: ${f.spec.name} `));
    return problemFrom(err, field?.spec.name);
  }
  return problemFrom(err, undefined);
}

function kindPages(web: Web, kind: WebKind): void {
  const { deps } = web;
  const { spec } = kind;
  const fields = ['name', ...kind.fields.map((f) => f.spec.name)];

  const rowsOf = (who: SignedIn): Promise<Row[]> => listOrganizers(deps, webAuth(who), { spec });

  async function showList(request: FastifyRequest, reply: FastifyReply, who: SignedIn, status: number, typed?: { values: Values; problem: Problem }): Promise<FastifyReply> {
    const flash = status === 200 ? web.flash(request, reply) : {};
    const rows = await rowsOf(who);
    const usage = await usageOf(deps, who.account.pk, kind, rows);
    const v = { kind, csrf: web.csrf(reply), rows, usage, values: typed?.values ?? initialValues(kind), problem: typed?.problem, notice: flash.notice, error: flash.error };
    return web.page(reply, status, kindListPage(web.site, web.nav(reply, who, kind.path), v));
  }

  /** The record the address names, among the signed-in person's; null (and a 404 page sent) otherwise. */
  async function recordOf(request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<{ row: Row; rows: Row[] } | null> {
    const id = classifyId((request.params as { id: string }).id);
    const rows = typeof id === 'number' ? await rowsOf(who) : [];
    const row = rows.find((r) => r['id'] === id);
    if (row) return { row, rows };
    // Another person's record answers as none does: its id is not confirmed.
    web.errorPage(reply, 404, `No such ${spec.noun}`, `There is no ${spec.noun} of yours at this address.`);
    return null;
  }

  async function showRecord(request: FastifyRequest, reply: FastifyReply, who: SignedIn, found: { row: Row; rows: Row[] }, status: number, typed?: { values: Values; problem: Problem }): Promise<FastifyReply> {
    const flash = status === 200 ? web.flash(request, reply) : {};
    const usage = (await usageOf(deps, who.account.pk, kind, found.rows))(found.row['id'] as number);
    const v = { kind, csrf: web.csrf(reply), row: found.row, rows: found.rows, usage, values: typed?.values ?? valuesOf(kind, found.row), problem: typed?.problem, notice: flash.notice ?? flash.error };
    return web.page(reply, status, recordPage(web.site, web.nav(reply, who, kind.path), v));
  }

  web.getSignedIn(kind.path, async function showKind(request, reply, who) {
    return showList(request, reply, who, 200);
  });

  web.postSignedIn(kind.path, fields, async function addRecord(request, reply, p, who) {
    const raw = rawOf(kind, p);
    try {
      const row = await addOrganizer(deps, webAuth(who), { spec, raw });
      return web.redirect(request, reply, kind.path, { notice: `Added the ${spec.noun} “${String(row['name'])}”.` });
    } catch (err) {
      // A refusal shows the form again at once, with what was typed (a note can be far larger than a cookie).
      if (err instanceof ApiError) return showList(request, reply, who, 422, { values: raw, problem: problemOf(kind, err) });
      throw err;
    }
  });

  web.getSignedIn(`${kind.path}/:id`, async function showOne(request, reply, who) {
    const found = await recordOf(request, reply, who);
    return found ? showRecord(request, reply, who, found, 200) : reply;
  });

  web.postSignedIn(`${kind.path}/:id`, fields, async function saveRecord(request, reply, p, who) {
    const found = await recordOf(request, reply, who);
    if (!found) return reply;
    const id = found.row['id'] as number;
    const back = `${kind.path}/${id}`;
    const raw = rawOf(kind, p);
    // The API resets a goal it cannot contribute to (not of a higher level) to none: the page says so.
    const asked = spec.kind === 'goal' ? Number(raw['contributes'] || 0) : 0;
    const reset = (contributes: unknown): string => (asked !== 0 && contributes !== asked ? ' It contributes to no goal: the goal chosen is not of a higher level.' : '');
    try {
      const saved = await editOrganizer(deps, webAuth(who), { spec, raw: { ...raw, id: String(id) } });
      return web.redirect(request, reply, back, { notice: `Saved.${reset(saved['contributes'])}` });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === spec.codes.nothingEdited) return web.redirect(request, reply, back, { notice: `Nothing to save: no field was changed.${reset(found.row['contributes'])}` });
      return showRecord(request, reply, who, found, 422, { values: raw, problem: problemOf(kind, err) });
    }
  });

  if (kind.archivable) {
    web.postSignedIn(`${kind.path}/:id/archive`, ['archived'], async function archiveRecord(request, reply, p, who) {
      const found = await recordOf(request, reply, who);
      if (!found) return reply;
      const id = found.row['id'] as number;
      const archived = p.get('archived') === '1' ? '1' : '0';
      try {
        await editOrganizer(deps, webAuth(who), { spec, raw: { id: String(id), archived } });
      } catch (err) {
        // Archived already (another tab, an app): nothing to do, and nothing went wrong.
        if (!(err instanceof ApiError && err.code === spec.codes.nothingEdited)) throw err;
      }
      return web.redirect(request, reply, `${kind.path}/${id}`, { notice: archived === '1' ? `The ${spec.noun} is archived.` : `The ${spec.noun} is restored.` });
    });
  }

  if (kind.orderable) {
    web.postSignedIn(`${kind.path}/:id/move`, ['direction'], async function moveRecord(request, reply, p, who) {
      const found = await recordOf(request, reply, who);
      if (!found) return reply;
      const id = found.row['id'] as number;
      const direction = p.get('direction') === 'up' ? 'up' : 'down';
      let moved: boolean;
      try {
        moved = await moveFolder(deps, webAuth(who), id, direction);
      } catch (err) {
        // Deleted meanwhile (another tab, an app): as for any folder that is not there.
        if (err instanceof ApiError && err.code === spec.codes.invalid) return web.errorPage(reply, 404, `No such ${spec.noun}`, `There is no ${spec.noun} of yours at this address.`);
        throw err;
      }
      return web.redirect(request, reply, `${kind.path}/${id}`, { notice: moved ? `Moved ${direction}.` : `It is at the ${direction === 'up' ? 'top' : 'bottom'} already.` });
    });
  }

  web.getSignedIn(`${kind.path}/:id/delete`, async function confirmDelete(request, reply, who) {
    const found = await recordOf(request, reply, who);
    if (!found) return reply;
    const usage = (await usageOf(deps, who.account.pk, kind, found.rows))(found.row['id'] as number);
    return web.page(reply, 200, confirmDeletePage(web.site, web.nav(reply, who, kind.path), { kind, csrf: web.csrf(reply), row: found.row, usage }));
  });

  web.postSignedIn(`${kind.path}/:id/delete`, [], async function deleteRecord(request, reply, _p, who) {
    const found = await recordOf(request, reply, who);
    if (!found) return reply;
    const id = found.row['id'] as number;
    const tasks = (await usageOf(deps, who.account.pk, kind, found.rows))(id).tasks;
    try {
      await deleteOrganizer(deps, webAuth(who), { spec, raw: { id: String(id) } });
    } catch (err) {
      // Deleted meanwhile (another tab, an app): the outcome asked for is there.
      if (!(err instanceof ApiError && err.code === spec.codes.invalid)) throw err;
    }
    const moved = tasks === 0 ? '' : ` ${count(tasks, 'task')} now ${tasks === 1 ? 'has' : 'have'} no ${spec.noun}.`;
    return web.redirect(request, reply, kind.path, { notice: `Deleted the ${spec.noun} “${String(found.row['name'])}”.${moved}` });
  });
}

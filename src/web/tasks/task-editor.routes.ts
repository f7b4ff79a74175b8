import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Flash } from '../flash.js';
import type { SignedIn, Web } from '../web-kit.js';
import { editorPage } from './task-editor.view.js';
import { fieldOfCode, FORM_FIELDS, formOf, readForm, type FormValues } from './task-form.js';
import { allTasks, editTask, organizersOf } from './tasks.web.js';

/**
 * The editor of one task at /tasks/ID: every field, saved with one tasks/edit (so a repeating task
 * completed here reschedules as the API's reschedule=1 does). A wrong field comes back marked,
 * with what was typed kept (in the sealed flash).
 */

/** Subtask parents offered in the editor: at most this many, by title (more would make the page slow). */
const MAX_PARENTS = 500;

function idParam(request: FastifyRequest): number | undefined {
  const raw = (request.params as Record<string, string>)['id'] ?? '';
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined;
}

export function taskEditorRoutes(web: Web): void {
  const { deps } = web;

  async function show(request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<FastifyReply> {
    const id = idParam(request);
    const all = id === undefined ? [] : await allTasks(deps, who.account.pk);
    const task = all.find((t) => t.id === id);
    if (!task) return web.errorPage(reply, 404, 'No such task', 'This task does not exist, or was deleted.');
    const flash: Flash = web.flash(request, reply);
    const kept = flash.fields ?? {};
    const errors = Object.fromEntries(Object.entries(kept).filter(([k]) => k.startsWith('error:')).map(([k, e]) => [k.slice(6), e]));
    const values: FormValues = Object.keys(errors).length > 0 ? Object.fromEntries(Object.entries(kept).filter(([k]) => !k.startsWith('error:'))) : formOf(task);
    const parents = all
      .filter((t) => t.parent === 0 && t.id !== task.id && (t.completed === 0 || t.id === task.parent))
      .sort((a, b) => a.title.localeCompare(b.title))
      .slice(0, MAX_PARENTS);
    if (task.parent !== 0 && !parents.some((p) => p.id === task.parent)) {
      const parent = all.find((t) => t.id === task.parent);
      if (parent) parents.unshift(parent);
    }
    const page = editorPage(web.site, web.nav(reply, who, '/'), {
      csrf: web.csrf(reply), task, values, errors, error: flash.error, notice: flash.notice, orgs: await organizersOf(deps, who.account.pk),
      // A task with subtasks cannot become one (one level of subtasks).
      parents: all.some((t) => t.parent === task.id) ? [] : parents,
      subtasks: all.filter((t) => t.parent === task.id).sort((a, b) => a.ord - b.ord), prefs: who.account.prefs,
    });
    return web.page(reply, 200, page, true);
  }

  web.getSignedIn('/tasks/:id', show);

  web.postSignedIn('/tasks/:id', FORM_FIELDS, async function saveTask(request, reply, p, who) {
    const id = idParam(request);
    if (id === undefined) return web.errorPage(reply, 404, 'No such task', 'This task does not exist, or was deleted.');
    const values: FormValues = Object.fromEntries(FORM_FIELDS.map((f) => [f, p.get(f)]).filter((kv): kv is [string, string] => kv[1] !== undefined));
    const { item, errors } = readForm(id, values);
    const back = `/tasks/${id}`;
    const refuse = (fieldErrors: Record<string, string>): FastifyReply =>
      // The message too: a form too large for the flash (a long note) loses its fields, not the reason.
      web.redirect(request, reply, back, { error: `Not saved: ${Object.entries(fieldErrors).map(([k, e]) => `${k}: ${e}`).join('; ')}.`, fields: { ...values, ...Object.fromEntries(Object.entries(fieldErrors).map(([k, e]) => [`error:${k}`, e])) } });
    if (Object.keys(errors).length > 0) return refuse(errors);
    const saved = await editTask(deps, who.account.pk, item, true);
    if ('errorCode' in saved) {
      if (saved.errorCode === 605) return web.redirect(request, reply, '/', { error: 'That task no longer exists.' });
      const field = fieldOfCode(saved.errorCode);
      const desc = saved.errorDesc.replace(/^Malformed request: /, '');
      if (field) return refuse({ [field]: desc });
      return web.redirect(request, reply, back, { error: `Not saved: ${desc}.` });
    }
    return web.redirect(request, reply, back, { notice: 'Saved.' });
  });
}

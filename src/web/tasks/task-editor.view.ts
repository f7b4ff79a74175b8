import { REMIND_VALUES } from '../../features/tasks/task-rules.js';
import type { Prefs, Task } from '../../storage/store.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { repeatInWords } from './repeat-words.js';
import { dayOfDate, formatDay, formatStamp } from './task-dates.js';
import { WEEKDAY_CODES, type FormValues } from './task-form.js';
import { PRIORITIES, STATUSES } from './task-views.js';
import type { Organizers } from './tasks.web.js';

/** The editor of one task: every field the API has, each with its label, hint and own error. */

export interface EditorPage {
  readonly csrf: string;
  readonly task: Task;
  readonly values: FormValues;
  readonly errors: Readonly<Record<string, string>>;
  readonly error?: string | undefined;
  readonly notice?: string | undefined;
  readonly orgs: Organizers;
  /** Tasks that can be this one's parent: top-level, not this one. */
  readonly parents: ReadonlyArray<{ id: number; title: string }>;
  readonly subtasks: readonly Task[];
  readonly prefs: Prefs;
}

const DUE_MODS: ReadonlyArray<readonly [string, string]> = [['0', 'Due by'], ['1', 'Due on'], ['2', 'Due after'], ['3', 'Optionally']];

function remindLabel(m: number): string {
  if (m === 0) return 'No reminder';
  if (m < 60) return `${m} minute${m === 1 ? '' : 's'} before`;
  if (m < 1440) return `${m / 60} hour${m === 60 ? '' : 's'} before`;
  if (m < 10080) return `${m / 1440} day${m === 1440 ? '' : 's'} before`;
  if (m < 43200) return `${m / 10080} week${m === 10080 ? '' : 's'} before`;
  return '30 days before';
}

/** One labelled control with its hint and its error, tied to it for screen readers. */
function control(name: string, label: string, inner: (attrs: string) => string, v: EditorPage, hint?: string): string {
  const id = `f-${name}`;
  const error = v.errors[name];
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = `id="${id}" name="${name}"${described ? ` aria-describedby="${described}"` : ''}${error ? ' aria-invalid="true"' : ''}`;
  return `<div><label for="${id}">${h(label)}</label>${hint ? `<span class="hint" id="${id}-hint">${h(hint)}</span>` : ''}${
    error ? `<span class="field-error" id="${id}-error">${h(error)}</span>` : ''
  }${inner(attrs)}</div>`;
}

function input(name: string, label: string, type: string, v: EditorPage, extra = '', hint?: string): string {
  return control(name, label, (a) => `<input ${a} type="${type}" value="${h(v.values[name as keyof FormValues] ?? '')}"${extra}>`, v, hint);
}

function selectOf(name: string, label: string, options: ReadonlyArray<readonly [string, string]>, v: EditorPage, hint?: string): string {
  const value = v.values[name as keyof FormValues] ?? '';
  const opts = options.map(([o, text]) => `<option value="${h(o)}"${o === value ? ' selected' : ''}>${h(text)}</option>`).join('');
  return control(name, label, (a) => `<select ${a}>${opts}</select>`, v, hint);
}

function orgOptions(list: ReadonlyArray<{ id: number; name: string; archived?: number }>, none: string): Array<[string, string]> {
  return [['0', none], ...list.map((o): [string, string] => [String(o.id), o.archived === 1 ? `${o.name} (archived)` : o.name])];
}

function repeatBuilder(v: EditorPage): string {
  const freqs: Array<[string, string]> = [['', 'Does not repeat'], ['DAILY', 'Days'], ['WEEKLY', 'Weeks'], ['MONTHLY', 'Months'], ['YEARLY', 'Years'], ['custom', 'A custom rule (the text below)']];
  const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  const words = repeatInWords(v.task.repeat);
  return `<fieldset><legend>Repeat</legend>
<p class="muted" id="rule-words">${words ? `Now: ${h(words)}.` : 'Now: does not repeat.'}</p>
<div class="grid2">${input('rb_interval', 'Every', 'number', v, ' min="1" max="999" inputmode="numeric"')}${selectOf('rb_freq', 'Unit', freqs, v)}</div>
<fieldset><legend>On these days (weekly)</legend><div class="bar-row">${WEEKDAY_CODES.map((code, i) => `<label class="check"><input type="checkbox" name="rb_${code}" value="1"${v.values[`rb_${code}`] === '1' ? ' checked' : ''}> ${days[i]}</label>`).join('')}</div></fieldset>
<label class="check"><input type="checkbox" name="rb_fromcomp" value="1"${v.values.rb_fromcomp === '1' ? ' checked' : ''}> Count from the day it is completed, not from its due date</label>
${input('repeat', 'Rule (RRULE text)', 'text', v, ' spellcheck="false" autocomplete="off"', 'The rule as apps see it. Change it here for rules the builder cannot make (the 2nd Tuesday, COUNT, UNTIL); when you change it, it wins over the builder.')}
<input type="hidden" name="repeat_was" value="${h(v.values.repeat_was ?? '')}">
</fieldset>`;
}

/** Its subtasks, and a quick add that makes one (a subtask cannot have subtasks of its own). */
function subtasks(site: Site, v: EditorPage): string {
  if (v.task.parent !== 0) return '';
  const base = site.base;
  const list = v.subtasks.length === 0 ? '<p class="muted">No subtasks yet.</p>' : `<ol>${v.subtasks.map((s) => `<li><a href="${h(`${base}/tasks/${s.id}`)}">${h(s.title)}</a>${s.completed !== 0 ? ' (done)' : ''}</li>`).join('')}</ol>`;
  return `<h2>Subtasks</h2>${list}<form method="post" action="${h(base)}/tasks/add" aria-label="Add a subtask" class="bar-row">
<input type="hidden" name="_csrf" value="${h(v.csrf)}"><input type="hidden" name="back" value="/tasks/${v.task.id}"><input type="hidden" name="parent" value="${v.task.id}">
<div class="grow"><label for="sub-line">Add a subtask</label><input id="sub-line" name="line" type="text" maxlength="1000" required autocomplete="off"></div><div><button type="submit">Add</button></div></form>`;
}

export function editorPage(site: Site, nav: Nav, v: EditorPage): string {
  const base = site.base;
  const t = v.task;
  const errorCount = Object.keys(v.errors).length;
  const summary = errorCount > 0 ? `Not saved: ${errorCount === 1 ? 'one field needs' : `${errorCount} fields need`} a change (marked below).` : v.error;
  const body = `<div class="card"><p><a href="${h(base)}/">← Back to the list</a></p>
<h1>Edit “${h(t.title)}”</h1>
${messages({ error: summary, notice: v.notice })}
<form method="post" action="${h(`${base}/tasks/${t.id}`)}" aria-label="Edit the task" novalidate>
<input type="hidden" name="_csrf" value="${h(v.csrf)}">
${input('title', 'Title', 'text', v, ` maxlength="255" required${summary ? '' : ' autofocus'}`)}
<div class="grid2">
${selectOf('folder', 'Folder', orgOptions(v.orgs.folders, 'No folder'), v)}
${selectOf('context', 'Context', orgOptions(v.orgs.contexts, 'No context'), v)}
${selectOf('goal', 'Goal', orgOptions(v.orgs.goals, 'No goal'), v)}
${selectOf('location', 'Location', orgOptions(v.orgs.locations, 'No location'), v)}
${selectOf('priority', 'Priority', [3, 2, 1, 0, -1].map((p): [string, string] => [String(p), `${p} ${PRIORITIES[p] ?? ''}`]), v)}
${selectOf('status', 'Status', STATUSES.map((s, i): [string, string] => [String(i), s]), v)}
${input('duedate', 'Due date', 'date', v)}
${input('duetime', 'Due time', 'time', v, '', 'A floating time: the same clock time wherever you are.')}
${selectOf('duedatemod', 'Due how', DUE_MODS, v)}
${selectOf('remind', 'Reminder', REMIND_VALUES.map((m): [string, string] => [String(m), remindLabel(m)]), v, 'Before the due date and time.')}
${input('startdate', 'Start date', 'date', v)}
${input('starttime', 'Start time', 'time', v)}
${input('length', 'Length (minutes)', 'number', v, ' min="0" inputmode="numeric"')}
${input('completed', 'Completed on', 'date', v, '', 'Empty while it is still to do.')}
</div>
${input('tag', 'Tags', 'text', v, ' maxlength="250"', 'Separated by commas.')}
<label class="check"><input type="checkbox" name="star" value="1"${v.values.star === '1' ? ' checked' : ''}> Starred</label>
${selectOf('parent', 'Subtask of', [['0', 'None: a task of its own'], ...v.parents.map((p): [string, string] => [String(p.id), p.title])], v)}
${control('note', 'Note', (a) => `<textarea ${a}>\n${h(v.values.note ?? '')}</textarea>`, v)}
${repeatBuilder(v)}
<button type="submit">Save</button> <a class="button secondary" href="${h(base)}/">Cancel</a>
</form>
${subtasks(site, v)}
<form method="post" action="${h(`${base}/tasks/${t.id}/delete`)}" aria-label="Delete the task"><input type="hidden" name="_csrf" value="${h(v.csrf)}"><input type="hidden" name="back" value="/"><button type="submit" class="danger">Delete this task${v.subtasks.length > 0 ? ' and its subtasks' : ''}</button> <span class="muted">The list then offers Undo.</span></form>
<p class="muted">Added ${h(formatDay(dayOfDate(t.added) ?? 0, v.prefs))}; last changed ${h(formatStamp(t.modified, v.prefs))}.</p>
</div>`;
  return layout(site, `Edit ${t.title}`, body, { nav, scripts: ['/assets/tasks.js'] });
}

import type { Row } from '../../features/organizers/organizer-fields.js';
import { buttonForm, form } from '../forms.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { choiceOf, problemSummary, textBox, textInput, tickBox, type Problem } from '../organize/inputs.js';
import { count, GOAL_LEVELS, pointing, WEB_KINDS, type Usage, type WebField, type WebKind } from '../organize/organize-kinds.js';

/** The pages of folders, contexts, goals and locations: one set of views for the four kinds. */

/** What a form shows: the values typed (after a refusal) or stored, as text. */
export type Values = Readonly<Record<string, string>>;

/** The four kinds, as tabs under the heading. */
function kindTabs(site: Site, current: WebKind, onList: boolean): string {
  // On a record's page its kind's tab is the current section, not the current page.
  const mark = onList ? ' aria-current="page"' : ' aria-current="true"';
  const items = WEB_KINDS.map(
    (k) => `<li><a href="${h(site.base + k.path)}"${k === current ? mark : ''}>${h(k.title)}</a></li>`,
  ).join('');
  return `<nav aria-label="Organize" class="tabs"><ul>${items}</ul></nav>`;
}

/** A stored record as the form's text values. */
export function valuesOf(kind: WebKind, row: Row): Values {
  return Object.fromEntries([['name', String(row['name'])], ...kind.fields.map((f) => [f.spec.name, String(row[f.spec.name] ?? f.spec.initial)])]);
}

/** The values of a new record's form. */
export function initialValues(kind: WebKind): Values {
  return Object.fromEntries([['name', ''], ...kind.fields.map((f) => [f.spec.name, String(f.spec.initial)])]);
}

function fieldInput(f: WebField, value: string, problem: Problem | undefined, goals: readonly Row[], self: number | undefined): string {
  const common = { name: f.spec.name, label: f.label, hint: f.hint, problem };
  const t = f.spec.type;
  switch (t.type) {
    case 'flag':
      return tickBox({ ...common, checked: value === '1' });
    case 'choice':
      return choiceOf({ ...common, value, options: (f.choices ?? t.values.map((v) => [v, String(v)] as const)).map(([v, text]) => [String(v), text] as const) });
    case 'goal-ref': {
      const level = (v: unknown) => GOAL_LEVELS.find(([n]) => n === v)?.[1].toLowerCase() ?? '';
      // A short-term goal ranks lowest: no goal can contribute to it (goal-rules.ts), so it is no choice.
      const options = goals.filter((g) => g['id'] !== self && g['level'] !== 2).map((g) => [String(g['id']), `${String(g['name'])} (${level(g['level'])})`] as const);
      return choiceOf({ ...common, value, options: [['0', 'None'], ...options] });
    }
    case 'text':
      return textBox({ ...common, value, rows: 4 });
    case 'coordinate':
      return textInput({ ...common, value, type: 'number', step: 'any' });
  }
}

function recordFields(kind: WebKind, v: { values: Values; problem?: Problem | undefined; goals: readonly Row[]; self?: number; autofocus: boolean }): string {
  const name = textInput({ name: 'name', label: 'Name', value: v.values['name'] ?? '', required: true, problem: v.problem, autofocus: v.autofocus });
  return name + kind.fields.map((f) => fieldInput(f, v.values[f.spec.name] ?? '', v.problem, v.goals, v.self)).join('');
}

function badges(kind: WebKind, row: Row): string {
  return [kind.fields.some((f) => f.spec.name === 'private') && row['private'] === 1 ? 'Private' : '', row['archived'] === 1 ? 'Archived' : '']
    .filter(Boolean)
    .map((b) => ` <span class="badge">${b}</span>`)
    .join('');
}

export function kindListPage(
  site: Site,
  nav: Nav,
  v: { kind: WebKind; csrf: string; rows: readonly Row[]; usage: (id: number) => Usage; values: Values; problem?: Problem | undefined; notice?: string | undefined; error?: string | undefined },
): string {
  const { kind } = v;
  const noun = kind.spec.noun;
  const items = v.rows
    .map((row) => {
      const id = row['id'] as number;
      const facts = [count(v.usage(id).tasks, 'task'), kind.summary?.(row, v.rows) ?? ''].filter(Boolean).join(' · ');
      return `<li><span><a href="${h(`${site.base}${kind.path}/${id}`)}">${h(String(row['name']))}</a>${badges(kind, row)}</span><span class="muted">${h(facts)}</span></li>`;
    })
    .join('');
  const add = form(
    `${site.base}${kind.path}`,
    v.csrf,
    `${recordFields(kind, { values: v.values, problem: v.problem, goals: v.rows, autofocus: false })}<button type="submit">Add the ${h(noun)}</button>`,
    { label: `Add a ${noun}` },
  );
  return layout(
    site,
    kind.title,
    `<h1>${h(kind.title)}</h1>${kindTabs(site, kind, true)}${messages(v)}
<p>${h(kind.intro)}</p>
<section class="card" aria-labelledby="s-list"><h2 id="s-list">Your ${h(kind.spec.plural)} (${v.rows.length})</h2>
${items ? `<ul class="compact">${items}</ul>` : `<p>You have no ${h(kind.spec.plural)} yet.</p>`}</section>
<section class="card" aria-labelledby="s-add"><h2 id="s-add">Add a ${h(noun)}</h2>${problemSummary(v.problem, 'Not added')}${add}</section>`,
    { nav },
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

export function recordPage(
  site: Site,
  nav: Nav,
  v: { kind: WebKind; csrf: string; row: Row; rows: readonly Row[]; usage: Usage; values: Values; problem?: Problem | undefined; notice?: string | undefined },
): string {
  const { kind, row } = v;
  const noun = kind.spec.noun;
  const id = row['id'] as number;
  const base = `${site.base}${kind.path}/${id}`;
  const name = String(row['name']);
  const details = form(
    base,
    v.csrf,
    `${recordFields(kind, { values: v.values, problem: v.problem, goals: kind.spec.kind === 'goal' ? v.rows : [], self: id, autofocus: false })}<button type="submit">Save</button>`,
    { label: 'Details' },
  );
  const archived = row['archived'] === 1;
  const archive = kind.archivable
    ? `<section class="card" aria-labelledby="s-archive"><h2 id="s-archive">${archived ? 'Archived' : 'Archive'}</h2>
${
  archived
    ? `<p>This ${h(noun)} is archived. Restoring it shows it among the others again in apps.</p>${buttonForm(`${base}/archive`, v.csrf, `Restore the ${noun}`, { hidden: [['archived', '0']] })}`
    : `<ul>${(kind.archiveEffects?.(v.usage) ?? []).map((s) => `<li>${h(s)}</li>`).join('')}</ul>${buttonForm(`${base}/archive`, v.csrf, `Archive the ${noun}`, { hidden: [['archived', '1']] })}`
}</section>`
    : '';
  const at = v.rows.findIndex((r) => r['id'] === id);
  const order =
    kind.orderable && at >= 0
      ? `<section class="card" aria-labelledby="s-order"><h2 id="s-order">Position</h2><p>${ordinal(at + 1)} of ${v.rows.length} in the folder list apps show.</p>${
          at > 0 ? buttonForm(`${base}/move`, v.csrf, 'Move up', { hidden: [['direction', 'up']] }) : ''
        }${at < v.rows.length - 1 ? buttonForm(`${base}/move`, v.csrf, 'Move down', { hidden: [['direction', 'down']] }) : ''}</section>`
      : '';
  return layout(
    site,
    `${name} · ${kind.title}`,
    `<p class="crumbs"><a href="${h(site.base + kind.path)}">${h(kind.title)}</a></p><h1>${h(name)}${badges(kind, row)}</h1>${kindTabs(site, kind, false)}${messages({ notice: v.notice })}
<section class="card" aria-labelledby="s-details"><h2 id="s-details">Details</h2>${problemSummary(v.problem, 'Not saved')}${details}</section>
${order}${archive}
<section class="card" aria-labelledby="s-delete"><h2 id="s-delete">Delete</h2>
<p>${h(pointing(v.usage.tasks, noun))} The next page says what deleting it does, before anything is deleted.</p>
<a class="button secondary" href="${h(`${base}/delete`)}">Delete the ${h(noun)}…</a></section>`,
    { nav },
  );
}

export function confirmDeletePage(site: Site, nav: Nav, v: { kind: WebKind; csrf: string; row: Row; usage: Usage }): string {
  const { kind, row } = v;
  const noun = kind.spec.noun;
  const base = `${site.base}${kind.path}/${row['id'] as number}`;
  const effects = kind.deleteEffects(v.usage).map((s) => `<li>${h(s)}</li>`).join('');
  return layout(
    site,
    `Delete ${String(row['name'])}`,
    `<div class="card"><h1 tabindex="-1" autofocus>Delete the ${h(noun)} “${h(String(row['name']))}”?</h1>
<ul>${effects}</ul>
${form(`${base}/delete`, v.csrf, `<button type="submit" class="danger">Delete the ${h(noun)}</button> <a href="${h(base)}">Cancel</a>`)}</div>`,
    { nav, narrow: true },
  );
}

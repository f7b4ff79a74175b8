import type { Outline } from '../../storage/store.js';
import { form } from '../forms.js';
import { h, layout, type Nav, type Site } from '../html.js';
import { problemSummary, textBox, textInput, tickBox, type Problem } from '../organize/inputs.js';
import { outlineTree } from './outlines.js';

/** An outline's own pages: its form (make one, change one: title, keywords, note, hidden, its items as text) and the delete question. */

export interface OutlineValues {
  readonly title: string;
  readonly keywords: string;
  readonly note: string;
  readonly hidden: boolean;
  /** The items as text (outline-text.ts); undefined when they cannot be edited here. */
  readonly items: string | undefined;
}

/** The fields of an outline besides its items. */
export const HEADER_FIELDS = ['title', 'keywords', 'note', 'hidden'] as const;
export type HeaderField = (typeof HEADER_FIELDS)[number];
/** The hidden field that keeps what the form showed of `f`. */
export const shownName = (f: HeaderField): string => `was.${f}`;
/** A header field as text, as the form sends it back ('1' or '0' for the hidden flag). */
export function shownHeader(v: OutlineValues, f: HeaderField): string {
  return f === 'hidden' ? (v.hidden ? '1' : '0') : v[f];
}

/** An outline's title, keywords, note and hidden flag, as a stale save shows them. */
function nowFacts(o: Outline): string {
  const facts: Array<readonly [string, string]> = [['Title', o.title], ['Keywords', o.keywords], ['Note', o.note], ['Hidden', o.hidden === 1 ? 'Yes' : 'No']];
  return `<dl class="facts cells">${facts.filter(([, x]) => x !== '').map(([k, x]) => `<dt>${k}</dt><dd>${h(x)}</dd>`).join('')}</dl>`;
}

export function outlineFormPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    /** The outline changed, or none for a new one. */
    outline?: Outline | undefined;
    ref?: string | undefined;
    version?: number | undefined;
    values: OutlineValues;
    /**
     * The title, keywords, note and hidden flag of the version the form is made on, kept in hidden
     * fields: after a stale save, a field the person left as shown takes the outline's value as
     * it now is (an app's rename stands), and only what was typed replaces it.
     */
    shown?: OutlineValues | undefined;
    problem?: Problem | undefined;
    /** A stale save: the outline as another change left it, shown above what was typed. */
    now?: Outline | undefined;
  },
): string {
  const editing = v.outline !== undefined;
  const path = editing ? `${site.base}/outlines/${v.outline?.id ?? ''}` : `${site.base}/outlines`;
  const action = editing ? `${path}/edit` : path;
  const shown = v.shown ?? v.values;
  const hidden: Array<readonly [string, string]> = editing
    ? [['version', String(v.version ?? 0)], ...HEADER_FIELDS.map((f) => [shownName(f), shownHeader(shown, f)] as const)]
    : [['ref', v.ref ?? '']];
  const items =
    v.values.items === undefined
      ? '<p class="hint">The items are changed by the apps that keep this outline: one holds a line break, which a line here cannot.</p>'
      : textBox({
          name: 'items',
          label: 'Items',
          value: v.values.items,
          rows: 14,
          problem: v.problem,
          hint: 'One item a line. A line indented more than the one above goes under it (two spaces a level); [x] at the start marks an item done, [ ] one not done, and the text after it is kept as typed.',
        });
  const body = `${textInput({ name: 'title', label: 'Title', value: v.values.title, required: true, problem: v.problem, autofocus: true, maxChars: 100 })}
${textInput({ name: 'keywords', label: 'Keywords', value: v.values.keywords, problem: v.problem, maxChars: 200 })}
${textBox({ name: 'note', label: 'Note', value: v.values.note, rows: 3, problem: v.problem, hint: 'At most 2,000 characters.' })}
${tickBox({ name: 'hidden', label: 'Hidden', checked: v.values.hidden, problem: v.problem, hint: 'Apps may leave a hidden outline out of what they show.' })}
${items}
<button type="submit">${editing ? 'Save the outline' : 'Make the outline'}</button> <a href="${h(path)}">Cancel</a>`;
  const title = editing ? 'Change the outline' : 'Make an outline';
  const now = v.now ? `<h2>The outline as it is now</h2>${nowFacts(v.now)}${outlineTree(v.now)}<p>Saving replaces it with what is below.</p>` : '';
  const remove = editing ? `<p><a class="button secondary" href="${h(`${path}/delete`)}">Delete the outline…</a></p>` : '';
  const crumbs = `<p class="crumbs"><a href="${h(site.base)}/outlines">Outlines</a>${editing ? ` › <a href="${h(path)}">${h(v.outline?.title ?? '')}</a>` : ''}</p>`;
  return layout(
    site,
    editing ? `Change ${v.outline?.title ?? ''}` : title,
    `${crumbs}<div class="card"><h1>${title}</h1>${problemSummary(v.problem, editing ? 'Not saved' : 'Not made')}${now}${form(action, v.csrf, body, { label: title, hidden })}</div>${remove}`,
    { nav },
  );
}

export function confirmOutlineDeletePage(site: Site, nav: Nav, v: { csrf: string; outline: Outline; linked: boolean }): string {
  const path = `${site.base}/outlines/${v.outline.id}`;
  const count = v.outline.nodes.count;
  return layout(
    site,
    `Delete ${v.outline.title}`,
    `<div class="card"><h1 tabindex="-1" autofocus>Delete the outline “${h(v.outline.title)}”?</h1>
<ul><li>${h(count === 0 ? 'It has no items.' : `Its ${count} item${count === 1 ? '' : 's'} go with it.`)}</li><li>${
      v.linked ? 'Tasks link to this outline: they are kept, without the link. Apps see those tasks as edited at their next sync.' : 'No task links to this outline.'
    }</li><li>Apps remove it at their next sync. The deletion cannot be undone.</li></ul>
${form(`${path}/delete`, v.csrf, `<button type="submit" class="danger">Delete the outline</button> <a href="${h(path)}">Cancel</a>`)}</div>`,
    { nav, narrow: true },
  );
}

import type { List } from '../../storage/store.js';
import { form } from '../forms.js';
import { h, layout, type Nav, type Site } from '../html.js';
import { slotName, TYPE_OPTIONS, type ListValues, type Slot } from '../lists/list-form.js';
import { choiceOf, problemSummary, textBox, textInput, tickBox, type Problem } from '../organize/inputs.js';

/** A list's own pages: its form (make one, change one: title, keywords, note, columns) and the delete question. */

/** One column's fields, side by side on a wide screen (the rules are said once, above them). */
function slotFields(slot: Slot, i: number, problem: Problem | undefined): string {
  const existing = slot.id !== undefined;
  const legend = existing ? `Column ${i + 1}${slot.title ? `: ${slot.title}` : ''}` : `New column ${i + 1}`;
  return `<fieldset class="slot"><legend>${h(legend)}</legend>
<div>${textInput({ name: slotName(i, 'title'), label: 'Title', value: slot.title, problem, maxChars: 100 })}</div>
<div>${choiceOf({ name: slotName(i, 'type'), label: 'Type', value: slot.type, options: TYPE_OPTIONS, problem })}</div>
<div>${textInput({ name: slotName(i, 'choices'), label: 'Choices', value: slot.choices, problem, describedBy: 'choices-rule' })}</div>
${existing ? `<div class="wide">${tickBox({ name: slotName(i, 'remove'), label: 'Remove this column and its cells', checked: slot.remove, problem })}</div>` : ''}</fieldset>`;
}

export function listFormPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    /** The list changed, or none for a new one. */
    list?: List | undefined;
    /** A new list's ref (kept on a refusal: a form sent twice makes one list). */
    ref?: string | undefined;
    version?: number | undefined;
    values: ListValues;
    slots: readonly Slot[];
    problem?: Problem | undefined;
  },
): string {
  const editing = v.list !== undefined;
  const path = editing ? `${site.base}/lists/${v.list?.id ?? ''}` : `${site.base}/lists`;
  const action = editing ? `${path}/edit` : path;
  const hidden: Array<readonly [string, string]> = [
    ...(editing ? [['version', String(v.version ?? 0)] as const] : [['ref', v.ref ?? ''] as const]),
    ...v.slots.flatMap((s, i) => (s.id === undefined ? [] : [[slotName(i, 'id'), String(s.id)] as const])),
    ['slots', String(v.slots.length)],
  ];
  const body = `${textInput({ name: 'title', label: 'Title', value: v.values.title, required: true, problem: v.problem, autofocus: true, maxChars: 100 })}
${textInput({ name: 'keywords', label: 'Keywords', value: v.values.keywords, problem: v.problem, maxChars: 200 })}
${textBox({ name: 'note', label: 'Note', value: v.values.note, rows: 3, problem: v.problem, hint: 'At most 2,000 characters.' })}
<h2>Columns</h2><p class="hint">Rows have a cell for each column. A new column is added when it has a title${
    editing ? '; more blank ones come with each save. A new type empties the cells it does not allow, and a choice removed or renamed empties the cells that hold it' : ', and more can be added later'
  }. <span id="choices-rule">Choices are for pick one and pick several columns, separated by commas.</span></p>
${v.slots.map((s, i) => slotFields(s, i, v.problem)).join('\n')}
<button type="submit">${editing ? 'Save the list' : 'Make the list'}</button> <a href="${h(path)}">Cancel</a>`;
  const title = editing ? 'Change the list' : 'Make a list';
  const remove = editing ? `<p><a class="button secondary" href="${h(`${path}/delete`)}">Delete the list…</a></p>` : '';
  return layout(
    site,
    editing ? `Change ${v.list?.title ?? ''}` : title,
    `<p class="crumbs"><a href="${h(site.base)}/lists">Lists</a>${editing ? ` › <a href="${h(path)}">${h(v.list?.title ?? '')}</a>` : ''}</p><div class="card"><h1>${title}</h1>${problemSummary(v.problem, editing ? 'Not saved' : 'Not made')}${form(action, v.csrf, body, { label: title, hidden })}</div>${remove}`,
    { nav },
  );
}

export function confirmListDeletePage(site: Site, nav: Nav, v: { csrf: string; list: List; linked: boolean }): string {
  const path = `${site.base}/lists/${v.list.id}`;
  const rows = `${v.list.rows} row${v.list.rows === 1 ? '' : 's'}`;
  return layout(
    site,
    `Delete ${v.list.title}`,
    `<div class="card"><h1 tabindex="-1" autofocus>Delete the list “${h(v.list.title)}”?</h1>
<ul><li>${h(v.list.rows === 0 ? 'It has no rows.' : `Its ${rows} go with it.`)}</li><li>${
      v.linked ? 'Tasks link to this list: they are kept, without the link. Apps see those tasks as edited at their next sync.' : 'No task links to this list.'
    }</li><li>Apps remove it at their next sync. The deletion cannot be undone.</li></ul>
${form(`${path}/delete`, v.csrf, `<button type="submit" class="danger">Delete the list</button> <a href="${h(path)}">Cancel</a>`)}</div>`,
    { nav, narrow: true },
  );
}

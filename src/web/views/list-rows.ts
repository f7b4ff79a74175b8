import type { Account, List, ListColumn, ListRow } from '../../storage/store.js';
import { form } from '../forms.js';
import { h, layout, type Nav, type Site } from '../html.js';
import { choiceName, fieldName, isFlag, isPickSeveral, shownName, shownText, type FieldValue } from '../lists/row-form.js';
import { choiceOf, problemSummary, textBox, textInput, tickBox, type Problem } from '../organize/inputs.js';
import { cellText } from './lists.js';

/** A list row's pages: its form (add, edit) and the delete question. */

type Who = Pick<Account, 'prefs'>;

const titleOf = (c: ListColumn): string => c.title || 'Untitled';

/** What a person is told of a column's rule beside its field (the API's own words come back on a refusal). */
function hintOf(c: ListColumn): string | undefined {
  switch (c.type) {
    case 2:
      return 'An amount, kept to 2 decimals.';
    case 4:
      return 'In your timezone.';
    case 5:
      return 'An e-mail address.';
    case 6:
      return 'An icon number from 0 to 999.';
    case 8:
      return 'Minutes.';
    case 13:
      return 'A whole number.';
    case 14:
      return 'A percentage.';
    case 15:
      return 'A phone number.';
    case 16:
      return 'A rating from 0 to 5.';
    case 21:
      return 'An address with its scheme, such as https://example.org.';
    case 22:
      return 'A year.';
    default:
      return c.type > 12 && c.type < 13 ? `A number, kept to ${Math.round((c.type - 12) * 10)} decimal${c.type === 12.1 ? '' : 's'}.` : undefined;
  }
}

/**
 * A pick-several column: a group of boxes, one per choice, each sending the choice itself; the
 * refusal (if it is about them) on the group and on each box.
 */
function choiceBoxes(c: ListColumn, picked: readonly string[], problem: Problem | undefined, autofocus: boolean): string {
  const name = fieldName(c);
  const mine = problem?.field === name ? problem : undefined;
  const error = mine ? `<span class="field-error" id="f-${name}-error">${h(mine.message)} (error ${mine.code})</span>` : '';
  const invalid = mine ? ` aria-describedby="f-${name}-error" aria-invalid="true"` : '';
  const boxes = (c.choices ?? [])
    .map(
      (choice, i) =>
        `<label class="check" for="f-${name}-${i}"><input type="checkbox" id="f-${name}-${i}" name="${h(choiceName(c, i))}" value="${h(choice)}"${picked.includes(choice) ? ' checked' : ''}${invalid}${
          i === 0 && (mine || (autofocus && !problem)) ? ' autofocus' : ''
        }> ${h(choice)}</label>`,
    )
    .join('');
  return `<fieldset${mine ? ` aria-describedby="f-${name}-error"` : ''}><legend>${h(titleOf(c))}</legend>${error}${boxes}</fieldset>`;
}

/** Number columns that take a minus sign get the full keyboard (a numeric one has none on some phones). */
const UNSIGNED = new Set([6, 8, 16, 22]);

/** The field of one column, by its type. */
function cellField(c: ListColumn, value: FieldValue, problem: Problem | undefined, autofocus: boolean): string {
  const name = fieldName(c);
  const common = { name, label: titleOf(c), problem, autofocus, hint: hintOf(c) };
  if (isFlag(c)) return tickBox({ ...common, checked: value === true });
  if (isPickSeveral(c)) return choiceBoxes(c, Array.isArray(value) ? value : [], problem, autofocus);
  const text = typeof value === 'string' ? value : '';
  if (c.type === 10) return choiceOf({ ...common, value: text, options: [['', 'None'], ...(c.choices ?? []).map((x) => [x, x] as const)] });
  // A one-line field would drop the line breaks an app stored in a short text.
  if (c.type === 18 || text.includes('\n')) return textBox({ ...common, value: text, rows: c.type === 18 ? 4 : 2 });
  if (c.type === 3) return textInput({ ...common, value: text, type: 'date' });
  if (c.type === 4) return textInput({ ...common, value: text, type: 'datetime-local' });
  const inputMode = c.type === 5 ? 'email' : c.type === 15 ? 'tel' : c.type === 21 ? 'url' : UNSIGNED.has(c.type) ? 'numeric' : undefined;
  return textInput({ ...common, value: text, ...(inputMode && { inputMode }) });
}

/** The row's cells as a person reads them, for the delete question and a conflict. */
export function rowSummary(who: Who, list: List, row: ListRow): string {
  const items = list.cols
    .filter((c) => row.cells[fieldName(c)] !== undefined)
    .map((c) => `<dt>${h(titleOf(c))}</dt><dd>${h(cellText(who, c, row.cells[fieldName(c)]))}</dd>`)
    .join('');
  return items === '' ? '<p class="muted">Every cell of this row is empty.</p>' : `<dl class="facts cells">${items}</dl>`;
}

const crumbs = (site: Site, list: List): string => `<p class="crumbs"><a href="${h(site.base)}/lists">Lists</a> › <a href="${h(`${site.base}/lists/${list.id}`)}">${h(list.title)}</a></p>`;

export function rowFormPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    list: List;
    /** The row edited (as it now is), or none for a new one. */
    row?: ListRow | undefined;
    /** A new row's ref (sent again on a retry, so that one row is added however often the form is sent). */
    ref?: string | undefined;
    /** The version the edit is made on. */
    version?: number | undefined;
    values: Readonly<Record<string, FieldValue>>;
    /** An edit's: what the form shows for the row as stored (kept in hidden fields: a stale save tells from them what was changed). */
    shown?: Readonly<Record<string, FieldValue>> | undefined;
    problem?: Problem | undefined;
    /** A stale edit: the row as another change left it, shown above the form. */
    changed?: { readonly who: Who; readonly row: ListRow } | undefined;
  },
): string {
  const editing = v.row !== undefined;
  const listPath = `${site.base}/lists/${v.list.id}`;
  const action = editing ? `${listPath}/rows/${v.row?.id ?? ''}` : `${listPath}/rows`;
  const fields = v.list.cols.map((c, i) => cellField(c, v.values[fieldName(c)] ?? '', v.problem, i === 0)).join('\n');
  const changed = v.changed
    ? `<h2>The row as it is now</h2>${rowSummary(v.changed.who, v.list, v.changed.row)}<p>The fields below hold its values, except those you changed, which hold what you typed. Save to put your changes in, or cancel to keep the row as it is.</p>`
    : '';
  const shown = v.shown ?? {};
  const hidden: Array<readonly [string, string]> = editing
    ? [['version', String(v.version ?? 0)], ...v.list.cols.map((c) => [shownName(c), shownText(shown[fieldName(c)] ?? '')] as const)]
    : [['ref', v.ref ?? '']];
  const body = `${fields}
<button type="submit">${editing ? 'Save the row' : 'Add the row'}</button> <a href="${h(listPath)}">Cancel</a>`;
  const title = editing ? 'Edit a row' : 'Add a row';
  const remove = editing ? `<p><a class="button secondary" href="${h(`${action}/delete`)}">Delete the row…</a></p>` : '';
  return layout(
    site,
    `${title} of ${v.list.title}`,
    `${crumbs(site, v.list)}<div class="card"><h1>${title}</h1>${problemSummary(v.problem, editing ? 'Not saved' : 'Not added')}${changed}${form(action, v.csrf, body, { label: title, hidden })}</div>${remove}`,
    { nav },
  );
}

export function confirmRowDeletePage(site: Site, nav: Nav, v: { csrf: string; list: List; row: ListRow; who: Who }): string {
  const path = `${site.base}/lists/${v.list.id}/rows/${v.row.id}`;
  return layout(
    site,
    `Delete a row of ${v.list.title}`,
    `${crumbs(site, v.list)}<div class="card"><h1 tabindex="-1" autofocus>Delete this row of “${h(v.list.title)}”?</h1>${rowSummary(v.who, v.list, v.row)}
<p>Apps remove it at their next sync. The deletion cannot be undone.</p>
${form(`${path}/delete`, v.csrf, `<button type="submit" class="danger">Delete the row</button> <a href="${h(path)}">Cancel</a>`)}</div>`,
    { nav, narrow: true },
  );
}

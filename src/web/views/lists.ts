import type { Account, CellValue, List, ListColumn, ListRow } from '../../storage/store.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { accountDay } from '../organize/dates.js';
import { showMore } from '../paging.js';

/**
 * The lists pages: the account's lists, and one list's rows as a table of its columns, each row
 * with a link to its form (views/list-rows.ts); the list's own form is views/list-form.ts.
 */

type Who = Pick<Account, 'prefs'>;

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * A cell as a person reads it, by its column's type (list-columns.ts, COLUMN_TYPES): a date is
 * stored at noon UTC of its day and shown as that day; a date and time in the account's timezone;
 * flags as words; several choices joined. Text is shown as text, never as a link: a URL cell may
 * hold any scheme.
 */
export function cellText(who: Who, column: ListColumn, value: CellValue | undefined): string {
  if (value === undefined || value === '') return '';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value !== 'number') return String(value);
  switch (column.type) {
    case 1:
      return value === 1 ? 'Yes' : 'No';
    case 17:
      return value === 1 ? 'Starred' : '';
    case 2:
      return value.toFixed(2);
    case 12.1:
    case 12.2:
    case 12.3:
    case 12.4:
      return value.toFixed(Math.round((column.type - 12) * 10));
    case 3:
      return accountDay({ prefs: { ...who.prefs, timezone: 10 } }, value);
    case 4: {
      const offset = (who.prefs.timezone - 10) * 1800;
      const d = new Date((value + offset) * 1000);
      return `${accountDay(who, value)} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    }
    case 8:
      return `${value} min`;
    case 14:
      return `${value} %`;
    case 16:
      return `${value} of 5`;
    default:
      return String(value);
  }
}

/** Where the lists pages stop: they have no search. */
export const NO_MORE = 'this page shows no more.';

export function listsPage(site: Site, nav: Nav, v: { lists: readonly List[]; total: number; more: string | undefined; day: (seconds: number) => string; notice?: string | undefined }): string {
  const hidden = v.total - v.lists.length;
  const items = v.lists
    .map(
      (l) =>
        `<li><span><a href="${h(`${site.base}/lists/${l.id}`)}">${h(l.title)}</a>${l.keywords === '' ? '' : ` <span class="muted">${h(l.keywords)}</span>`}</span><span class="muted">${h(
          `${l.rows} row${l.rows === 1 ? '' : 's'} · changed ${v.day(l.modified)}`,
        )}</span></li>`,
    )
    .join('');
  const body =
    v.total === 0
      ? '<div class="card"><p>You have no lists yet. Make one here, or with an app that keeps lists.</p></div>'
      : `<p class="muted" id="list-count">${h(`${v.total} list${v.total === 1 ? '' : 's'}`)}${hidden > 0 ? h(`; ${v.lists.length} shown, ${hidden} more below`) : ''}</p>
<section class="card" aria-label="Your lists"><ul class="compact">${items}</ul></section>
${hidden > 0 ? showMore(site.base, v.more, hidden, NO_MORE) : ''}`;
  return layout(site, 'Lists', `<h1>Lists</h1>${messages({ notice: v.notice })}<p><a class="button" href="${h(site.base)}/lists/new">Make a list</a></p>${body}`, { nav });
}

/** What a cell is ordered by: numbers as numbers (before text), text as people sort it. */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const cellKey = (x: CellValue | undefined): string => (x === undefined ? '' : Array.isArray(x) ? x.join(', ') : String(x));
function byCell(a: CellValue | undefined, b: CellValue | undefined): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return collator.compare(cellKey(a), cellKey(b));
}

export function listPage(
  site: Site,
  nav: Nav,
  v: { list: List; rows: readonly ListRow[]; show: number; more: string | undefined; who: Who; day: (seconds: number) => string; notice?: string | undefined },
): string {
  const l = v.list;
  // In the order they were added; those added together (one call of an app, one import) by
  // their first column's value, then by id: ids are a stamp and random digits, no order a person
  // would know.
  const first = l.cols[0] ? `c${l.cols[0].id}` : '';
  const ordered = [...v.rows].sort((a, b) => a.added - b.added || byCell(a.cells[first], b.cells[first]) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const shown = ordered.slice(0, v.show);
  const hidden = v.rows.length - shown.length;
  // The Edit links come first: a phone shows the table's first columns, the rest scroll.
  const head = `<th scope="col" class="act">Change</th>${l.cols.map((c) => `<th scope="col">${h(c.title || 'Untitled')}</th>`).join('')}`;
  const path = `${site.base}/lists/${l.id}`;
  const rows = shown
    .map((r, i) => {
      const cells = l.cols.map((c) => cellText(v.who, c, r.cells[`c${c.id}`]));
      // Named by its place and first cell: "Edit row 3, Milk" (rows have no title of their own).
      const name = `Edit row ${i + 1}${cells[0] ? `, ${cells[0].slice(0, 80)}` : ''}`;
      return `<tr><td class="act"><a href="${h(`${path}/rows/${r.id}`)}" aria-label="${h(name)}">Edit</a></td>${cells.map((t) => `<td>${h(t)}</td>`).join('')}</tr>`;
    })
    .join('');
  const about = [l.note === '' ? '' : `<div class="notetext">${h(l.note)}</div>`, `<p class="muted">${h([l.keywords === '' ? '' : l.keywords, `${l.rows} row${l.rows === 1 ? '' : 's'}`, `changed ${v.day(l.modified)}`].filter((x) => x !== '').join(' · '))}</p>`].join('');
  // A row is made of the list's columns: without any there is nothing to add.
  const change = `<a class="button secondary" href="${h(path)}/edit">Change the list</a>`;
  const add = `<p>${l.cols.length === 0 ? '' : `<a class="button" href="${h(path)}/rows/new">Add a row</a> `}${change}</p>`;
  const table =
    l.cols.length === 0
      ? '<div class="card"><p>This list has no columns yet: give it some with “Change the list”.</p></div>'
      : v.rows.length === 0
        ? '<div class="card"><p>This list has no rows yet.</p></div>'
        : `<div class="tablewrap" role="region" aria-labelledby="rows-caption" tabindex="0"><table><caption id="rows-caption">Rows of ${h(l.title)}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>
${hidden > 0 ? showMore(site.base, v.more, hidden, NO_MORE) : ''}`;
  return layout(site, l.title, `<p class="crumbs"><a href="${h(site.base)}/lists">Lists</a></p><h1>${h(l.title)}</h1>${messages({ notice: v.notice })}${about}${add}${table}`, { nav });
}

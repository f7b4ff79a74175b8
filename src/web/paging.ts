import { h } from './html.js';

/**
 * Long lists of the pages (the task list, the notes): the first page of rows, and a "Show more"
 * link that shows a page more, up to a bound, instead of thousands of rows of HTML at once.
 */

/** Rows of a long list shown at first, and added by each "Show more" (the task list, the notes). */
export const PAGE_ROWS = 200;
/** The most rows a list page shows, however many "Show more" asked for. */
export const MAX_SHOW = 20_000;

/** How many rows of a long list to show: the `show` parameter, at least a page, at most 20,000. */
export function shownRows(raw: string | undefined): number {
  const n = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : PAGE_ROWS;
  return Math.min(MAX_SHOW, Math.max(PAGE_ROWS, n));
}

/**
 * The "Show more" link of a list showing `show` rows at `here` (a local path and query): the same
 * address showing a page more; undefined once it shows the most a page may (a search narrows it).
 */
export function showMoreAddress(here: string, show: number): string | undefined {
  if (show >= MAX_SHOW) return undefined;
  const url = new URL(here, 'http://x');
  url.searchParams.set('show', String(Math.min(MAX_SHOW, show + PAGE_ROWS)));
  // Only this server's own pages: a path such as /.//host would otherwise leave it.
  return url.pathname.startsWith('//') || url.host !== 'x' ? undefined : `${url.pathname}${url.search}`;
}

/**
 * The "Show more" link of a long list, or why there is none: `limit` says where a page stops (a
 * page without a search, or one that stops sooner, says so).
 */
export function showMore(base: string, next: string | undefined, hidden: number, limit = `a page shows at most ${MAX_SHOW.toLocaleString('en-US')}. Search to narrow the list.`): string {
  return next === undefined
    ? `<p class="muted">${hidden} more not shown: ${h(limit)}</p>`
    : `<p><a class="button secondary" href="${h(base + next)}">Show ${Math.min(hidden, PAGE_ROWS)} more (of ${hidden})</a></p>`;
}


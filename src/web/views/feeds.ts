import { webcalOf } from '../../features/feeds/feeds.service.js';
import type { CalendarFeed, Folder } from '../../storage/store.js';
import { buttonForm, form, select } from '../forms.js';
import { dayAndTime, h, layout, messages, type Nav, type Site } from '../html.js';

/**
 * The Calendar feeds page (docs/feeds.md, docs/web.md): the feeds with when they were made and
 * last fetched, Revoke, the form that makes one, and the new feed's address, shown once after the
 * form's redirect, in fields that select whole for copying. No script.
 */

export interface FeedsView {
  readonly csrf: string;
  readonly feeds: readonly CalendarFeed[];
  /** The account's folders, for the form's choice and the feeds' names. */
  readonly folders: readonly Folder[];
  /** The new feed's https address, shown once. */
  readonly secret?: { readonly label: string; readonly value: string } | undefined;
  /** The form as posted, when it came back with an error. */
  readonly fields?: Readonly<Record<string, string>> | undefined;
  readonly error?: string | undefined;
  readonly notice?: string | undefined;
}

/** What a feed holds, in words: "all tasks", or "folder Work". */
export function feedWhat(feed: Pick<CalendarFeed, 'folder'>, folders: readonly Folder[]): string {
  return feed.folder === null ? 'all tasks' : `folder ${folders.find((f) => f.id === feed.folder)?.name ?? feed.folder}`;
}

/** The new feed's address, once: where the page opens after making one (the focus goes to it). */
function newFeedNotice(secret: { readonly label: string; readonly value: string }): string {
  const webcal = webcalOf(secret.value);
  // Read-only text areas: the whole address is in sight at any width (it wraps), and selects and
  // copies as one piece.
  const address = (id: string, label: string, hint: string, value: string) =>
    `<label for="${id}">${h(label)}</label><span class="hint" id="${id}-hint">${h(hint)}</span><textarea id="${id}" class="address" rows="3" readonly aria-describedby="${id}-hint" spellcheck="false">${h(value)}</textarea>`;
  return `<div class="notice" role="status" tabindex="-1" autofocus id="new-feed"><p><strong>${h(secret.label)}</strong></p>
${address('feed-webcal', 'Subscription address (webcal)', 'For Apple Calendar and Outlook on a computer, or a phone: subscribe to it.', webcal)}
${address('feed-https', `The same address over ${secret.value.startsWith('https:') ? 'https' : 'http'}`, 'For Google Calendar (From URL) and Outlook on the web.', secret.value)}
<p><a href="${h(webcal)}">Subscribe on this device</a></p>
<p>Copy it now: it is shown this once, and only its hash is kept. Anyone who has it sees these tasks, so keep it to yourself; revoke the feed here if it leaks.</p></div>`;
}

function item(site: Site, csrf: string, feed: CalendarFeed, folders: readonly Folder[]): string {
  const what = feedWhat(feed, folders);
  const facts = [
    ['Holds', feed.folder === null ? 'Your open tasks with a due date' : "The folder's open tasks with a due date"],
    ['Made', dayAndTime(feed.createdAt)],
    ['Last fetched', feed.lastFetchedAt === null ? 'Never' : dayAndTime(feed.lastFetchedAt)],
  ];
  return `<li><h3>${h(what.charAt(0).toUpperCase() + what.slice(1))}</h3><dl class="facts">${facts.map(([dt, dd]) => `<dt>${h(dt as string)}</dt><dd>${h(dd as string)}</dd>`).join('')}</dl>
${buttonForm(`${site.base}/account/feeds/revoke`, csrf, `Revoke the feed of ${what}`, { hidden: [['id', String(feed.id)]], danger: true })}</li>`;
}

export function feedsPage(site: Site, nav: Nav, v: FeedsView): string {
  const list = v.feeds.length > 0 ? `<ul class="items">${v.feeds.map((f) => item(site, v.csrf, f, v.folders)).join('')}</ul>` : '<p>You have no calendar feeds.</p>';
  const choices: Array<readonly [string, string]> = [['all', 'All tasks'], ...v.folders.map((f): readonly [string, string] => [String(f.id), f.archived === 1 ? `Folder ${f.name} (archived)` : `Folder ${f.name}`])];
  return layout(
    site,
    'Calendar feeds',
    `<p class="crumbs"><a href="${h(site.base)}/account">Account</a></p><h1>Calendar feeds</h1>${messages(v)}${v.secret ? newFeedNotice(v.secret) : ''}
<section class="card" aria-labelledby="s-feeds"><h2 id="s-feeds">Your feeds</h2>
<p>A calendar feed puts your open tasks with a due date in Google Calendar, Apple Calendar or Outlook, as events on their due dates, each with a link back to its task here. Calendars only read it: change a task here, or in a CalDAV app (see Connected apps). A calendar fetches a feed again every 15 minutes or less often (Google Calendar: every few hours).</p>
${list}
<p class="muted">Revoking a feed stops its address at once; calendars subscribed to it show an error or keep the last copy. "Last fetched" is recorded at most once a minute.</p></section>
<section class="card" aria-labelledby="s-new-feed"><h2 id="s-new-feed">Make a feed</h2>
${form(
  `${site.base}/account/feeds`,
  v.csrf,
  `${select({ name: 'tasks', label: 'Tasks in the feed', value: v.fields?.['tasks'] ?? 'all', options: choices, hint: 'All your tasks, or those of one folder. Completed tasks and tasks without a due date are left out.' })}
<button type="submit">Make the feed</button>`,
)}</section>`,
    { nav },
  );
}

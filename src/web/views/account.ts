import { MIN_PASSWORD_LENGTH } from '../../lib/password.js';
import { PREF_RANGES } from '../../features/users/settings.service.js';
import type { Account } from '../../storage/store.js';
import { checkbox, field, form, select } from '../forms.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';

/** The account pages: settings, e-mail, password, deletion. */

const DATE_FORMATS: ReadonlyArray<readonly [string, string]> = [
  ['0', 'Jan 31, 2026 (M D, Y)'],
  ['1', '01/31/2026 (M/D/Y)'],
  ['2', '31/01/2026 (D/M/Y)'],
  ['3', '2026-01-31 (Y-M-D)'],
];

/** timezone counts half hours from the hosted service's Eastern Standard Time (UTC-5). */
function timezones(): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [];
  const [min, max] = PREF_RANGES.timezone;
  for (let v = min; v <= max; v++) {
    const utcHalfHours = v - 10;
    const sign = utcHalfHours < 0 ? '−' : '+';
    const abs = Math.abs(utcHalfHours);
    out.push([String(v), `UTC${sign}${String(Math.floor(abs / 2)).padStart(2, '0')}:${abs % 2 ? '30' : '00'}`]);
  }
  return out;
}

const PRIORITIES: ReadonlyArray<readonly [string, string]> = [
  ['-1', 'Negative (−1) and above'],
  ['0', 'Low (0) and above'],
  ['1', 'Medium (1) and above'],
  ['2', 'High (2) and above'],
  ['3', 'Top (3) only'],
];

export function settingsPage(
  site: Site,
  nav: Nav,
  v: { account: Account; csrf: string; error?: string | undefined; notice?: string | undefined; fields?: Readonly<Record<string, string>> | undefined; focus?: string | undefined },
): string {
  const a = v.account;
  const pref = (name: keyof Account['prefs']): string => v.fields?.[name] ?? String(a.prefs[name]);
  const settings = form(
    `${site.base}/account/settings`,
    v.csrf,
    `${field({ name: 'alias', label: 'Your name', value: v.fields?.['alias'] ?? a.alias, autocomplete: 'nickname', required: true, autofocus: !v.error && !v.notice, hint: 'Apps show it as your alias.' })}
${select({ name: 'timezone', label: 'Time zone', value: pref('timezone'), options: timezones(), hint: 'Apps show due times in it.' })}
${select({ name: 'dateformat', label: 'Date format', value: pref('dateformat'), options: DATE_FORMATS })}
${field({ name: 'hidemonths', label: 'Hide tasks due this many months ahead or more', type: 'number', value: pref('hidemonths'), min: 0, max: 120, required: true })}
<fieldset><legend>Hotlist</legend>
${select({ name: 'hotlistpriority', label: 'Tasks of priority', value: pref('hotlistpriority'), options: PRIORITIES })}
${field({ name: 'hotlistduedate', label: 'Tasks due within this many days', type: 'number', value: pref('hotlistduedate'), min: 0, max: 365, required: true })}
${checkbox({ name: 'hotliststar', label: 'Stars count towards the hotlist', checked: pref('hotliststar') === '1' })}
${checkbox({ name: 'hotliststatus', label: 'Status counts towards the hotlist', checked: pref('hotliststatus') === '1' })}
</fieldset>
${checkbox({ name: 'showtabnums', label: 'Show how many tasks each tab holds', checked: pref('showtabnums') === '1' })}
<button type="submit">Save the settings</button>`,
    { label: 'Settings' },
  );
  const email = form(
    `${site.base}/account/email`,
    v.csrf,
    `${field({ name: 'email', label: 'New e-mail address', type: 'email', value: v.fields?.['email'] ?? a.email, autocomplete: 'email', required: true })}
${field({ name: 'password', label: 'Your password', type: 'password', autocomplete: 'current-password', required: true, hint: 'To change the address you sign in with, and where reset links go.' })}
<button type="submit">Change the e-mail address</button>`,
    { label: 'E-mail address' },
  );
  return layout(
    site,
    'Account',
    `<h1>Account</h1>${messages(v)}
<section class="card" aria-labelledby="s-settings"><h2 id="s-settings">Settings</h2><p class="muted">Apps read these with account/get.</p>${settings}</section>
<section class="card" aria-labelledby="s-email"><h2 id="s-email">E-mail address</h2><p>You sign in as <strong>${h(a.email)}</strong>.</p>${email}</section>
<section class="card" aria-labelledby="s-collab"><h2 id="s-collab">Collaborators</h2><p><a href="${h(site.base)}/account/collaborators">Invite people and answer invitations</a> <span class="muted">to share tasks with them or have tasks reassigned</span></p></section>
<section class="card" aria-labelledby="s-feeds"><h2 id="s-feeds">Calendar feeds</h2><p><a href="${h(site.base)}/account/feeds">Subscribe to your tasks in a calendar</a> <span class="muted">(Google Calendar, Apple Calendar, Outlook: your tasks with a due date, on their days)</span></p></section>
<section class="card" aria-labelledby="s-export"><h2 id="s-export">Your data</h2><p class="muted">Download everything to keep a copy or to move it elsewhere.</p>
<ul class="downloads">
<li><a href="${h(site.base)}/account/export/json" download>The whole account as JSON</a> <span class="muted">(tasks, notes, outlines and lists with their folders, contexts, goals and locations: any Tickler server can import it)</span></li>
<li><a href="${h(site.base)}/account/export/csv" download>Tasks as CSV</a> <span class="muted">(for spreadsheets)</span></li>
<li><a href="${h(site.base)}/account/export/ical" download>Tasks as iCalendar</a> <span class="muted">(to-dos for calendar apps)</span></li>
</ul></section>
<section class="card" aria-labelledby="s-more"><h2 id="s-more">Password and account</h2>
<dl class="facts"><dt>User id</dt><dd><code>${h(a.userid)}</code></dd><dt>Since</dt><dd>${h(new Date(a.createdAt * 1000).toISOString().slice(0, 10))}</dd>${a.isAdmin ? '<dt>Role</dt><dd>Admin of this server</dd>' : ''}</dl>
<p><a href="${h(site.base)}/account/password">Change your password</a></p>
<p><a href="${h(site.base)}/account/delete">Delete your account</a></p></section>`,
    { nav },
  );
}

export function passwordPage(site: Site, nav: Nav, v: { csrf: string; error?: string | undefined }): string {
  return layout(
    site,
    'Change your password',
    `<div class="card"><h1>Change your password</h1>${messages(v)}
${form(
  `${site.base}/account/password`,
  v.csrf,
  `${field({ name: 'current', label: 'Current password', type: 'password', autocomplete: 'current-password', required: true, autofocus: !v.error })}
${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
<button type="submit">Change the password</button>`,
)}
<p class="muted">Every other browser signed in to your account is signed out. Apps you allowed keep their access: they never saw your password (see Connected apps).</p></div>`,
    { nav, narrow: true },
  );
}

export function deletePage(site: Site, nav: Nav, v: { csrf: string; email: string; apps: number; error?: string | undefined }): string {
  return layout(
    site,
    'Delete your account',
    `<div class="card"><h1>Delete your account</h1>${messages(v)}
<p>This deletes <strong>${h(v.email)}</strong> and everything of it on this server, for good: tasks, folders, contexts, goals, locations, the authorizations of your apps${
      v.apps > 0 ? `, and the ${v.apps === 1 ? 'app' : `${v.apps} apps`} you registered (their users lose access to them)` : ''
    }. Nothing can bring it back.</p>
${form(
  `${site.base}/account/delete`,
  v.csrf,
  `${field({ name: 'password', label: 'Your password', type: 'password', autocomplete: 'current-password', required: true, autofocus: !v.error })}
<button type="submit" class="danger">Delete my account and all its data</button> <a href="${h(site.base)}/account">Cancel</a>`,
)}</div>`,
    { nav, narrow: true },
  );
}

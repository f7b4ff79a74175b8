import type { AppPassword } from '../../storage/store.js';
import { buttonForm, field, form } from '../forms.js';
import { dayAndTime, h, type Site } from '../html.js';

/**
 * The app passwords part of the Connected apps page: the passwords with their last use and
 * Revoke, the form that makes one, and the new password, shown once after the form's redirect.
 */

export interface AppPasswordsView {
  readonly csrf: string;
  readonly passwords: readonly AppPassword[];
  /** The form as posted, when it came back with an error. */
  readonly fields?: Readonly<Record<string, string>> | undefined;
  /** Seconds another instance may go on accepting a revoked password (TOKEN_CACHE_SECONDS). */
  readonly cacheSeconds: number;
}

/** The new password, once: where the page opens after making one (the focus goes to it). */
export function newAppPasswordNotice(secret: { readonly label: string; readonly value: string }): string {
  return `<div class="notice" role="status" tabindex="-1" autofocus id="new-password"><p><strong>${h(secret.label)}</strong></p><code class="secret">${h(secret.value)}</code>
<p>Type it into the app now, with your e-mail address as the user name. It is shown this once: only its hash is kept. Capitals, spaces and dashes make no difference.</p></div>`;
}

function item(site: Site, csrf: string, p: AppPassword): string {
  const facts = [
    ['Access', p.readOnly ? 'Read only' : 'Read and write'],
    ['Made', dayAndTime(p.createdAt)],
    ['Last used', p.lastUsedAt === null ? 'Never' : dayAndTime(p.lastUsedAt)],
    ...(p.lastDevice === null ? [] : [['Device', p.lastDevice]]),
  ];
  return `<li><h3>${h(p.name)}</h3><dl class="facts">${facts.map(([dt, dd]) => `<dt>${h(dt as string)}</dt><dd>${h(dd as string)}</dd>`).join('')}</dl>
${buttonForm(`${site.base}/account/apps/passwords/revoke`, csrf, `Revoke ${p.name}`, { hidden: [['id', String(p.id)]], danger: true })}</li>`;
}

function accessChoice(readOnly: boolean): string {
  const option = (value: string, label: string, checked: boolean) =>
    `<label class="check"><input type="radio" name="access" value="${value}"${checked ? ' checked' : ''}> ${h(label)}</label>`;
  return `<fieldset><legend>Access</legend>${option('write', 'Read and write: the app may add, change and complete tasks', !readOnly)}${option(
    'read',
    'Read only: the app sees your tasks but cannot change them',
    readOnly,
  )}</fieldset>`;
}

export function appPasswordsSection(site: Site, v: AppPasswordsView): string {
  const list = v.passwords.length > 0 ? `<ul class="items">${v.passwords.map((p) => item(site, v.csrf, p)).join('')}</ul>` : '<p>You have no app passwords.</p>';
  const revoking =
    v.cacheSeconds > 0
      ? `Revoking a password stops it at once. Where this server runs as several instances, another instance may still accept it for up to ${v.cacheSeconds} seconds.`
      : 'Revoking a password stops it at once.';
  return `<section class="card" aria-labelledby="s-passwords"><h2 id="s-passwords">App passwords</h2>
<p>Calendar and reminders apps that sign in with a password (CalDAV: Reminders on an iPhone or a Mac, DAVx⁵, Thunderbird) take your e-mail address and an app password of their own, never your account password. Lost a phone? Revoke its password: your other apps and your account password go on working.</p>
${list}
<p class="muted">${h(revoking)} "Last used" is recorded at most once a minute.</p></section>
<section class="card" aria-labelledby="s-new-password"><h2 id="s-new-password">Make an app password</h2>
${form(
  `${site.base}/account/apps/passwords`,
  v.csrf,
  `${field({ name: 'name', label: 'Name', value: v.fields?.['name'], required: true, hint: 'The app or device it is for, such as iPhone: the list shows it.' })}
${accessChoice(v.fields?.['access'] === 'read')}
<button type="submit">Make the app password</button>`,
)}</section>`;
}

import type { Registration } from '../../config.js';
import type { AccountLink } from '../../storage/store.js';
import { buttonForm, field, form } from '../forms.js';
import { day, h, layout, messages, type Nav, type Site } from '../html.js';

export function invitesPage(
  site: Site,
  nav: Nav,
  v: { csrf: string; registration: Registration; invites: readonly AccountLink[]; secret?: { label: string; value: string } | undefined; error?: string | undefined; notice?: string | undefined },
): string {
  const link = v.secret
    ? `<div class="notice" role="status" tabindex="-1" autofocus><p><strong>${h(v.secret.label)}</strong></p><code class="secret">${h(v.secret.value)}</code><p>Send it to the person you invite. It is shown once, works once, within 7 days.</p></div>`
    : '';
  const items = v.invites
    .map(
      (i) => `<li><p><strong>${h(i.note || 'Invitation')}</strong> <span class="muted">· made ${day(i.createdAt)}, expires ${day(i.expiresAt)}</span></p>
${buttonForm(`${site.base}/admin/invites/withdraw`, v.csrf, 'Withdraw', { hidden: [['id', i.idHash]] })}</li>`,
    )
    .join('');
  const mode =
    v.registration === 'closed'
      ? '<p class="error">REGISTRATION is <code>closed</code>: nobody can sign up, invited or not. Set it to <code>invite</code> for invitations to work.</p>'
      : v.registration === 'open'
        ? '<p class="muted">REGISTRATION is <code>open</code>: anyone can sign up; an invitation is not needed.</p>'
        : '<p class="muted">REGISTRATION is <code>invite</code>: only people with an invitation can sign up.</p>';
  return layout(
    site,
    'Invitations',
    `<h1>Invitations</h1>${messages(v)}${link}
<section class="card" aria-labelledby="s-new"><h2 id="s-new">Invite someone</h2>${mode}
${form(
  `${site.base}/admin/invites`,
  v.csrf,
  `${field({ name: 'note', label: 'Who is it for? (optional)', hint: 'A note for you; the invited person does not see it.', autofocus: !v.secret && !v.error })}
<button type="submit">Make an invitation link</button>`,
)}</section>
<section class="card" aria-labelledby="s-open"><h2 id="s-open">Open invitations</h2>${items ? `<ul class="items">${items}</ul>` : '<p>None.</p>'}</section>`,
    { nav },
  );
}

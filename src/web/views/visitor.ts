import { MIN_PASSWORD_LENGTH } from '../../lib/password.js';
import type { SignupAccess } from '../../features/users/signup.service.js';
import { field, form } from '../forms.js';
import { h, layout, messages, type Site } from '../html.js';

/** Pages of people who are not signed in: the start page, sign-in, sign-up, password reset. */

export function landingPage(site: Site, v: { signupOpen: boolean; inviteOnly: boolean; noAccounts: boolean }): string {
  const signup = v.signupOpen
    ? `<a class="button secondary" href="${h(site.base)}/signup">Create an account</a>`
    : v.inviteOnly
      ? '<p class="muted">New accounts are by invitation: ask an admin of this server for a link.</p>'
      : '<p class="muted">This server does not take new accounts on the web: its operator creates them.</p>';
  const fresh = v.noAccounts
    ? `<p class="notice">This server has no accounts yet. Whoever runs it creates the first one, an admin, on the command line: <code>bin/tickler user add --email … --password … --admin</code>.</p>`
    : '';
  return layout(
    site,
    'Welcome',
    `<div class="card"><h1>Tickler at ${h(site.address)}</h1>
<p>This is a self-hosted to-do server. Apps written for the hosted Toodledo service's v3 API sync with it unchanged: tasks, folders, contexts, goals and locations, kept on this server by whoever runs it.</p>
<p>Sign in to plan your tasks (the hotlist, views by folder, context and due date, quick add), and to manage your account, the apps that can use it, and the apps you develop.</p>
${fresh}
<p><a class="button" href="${h(site.base)}/signin">Sign in</a> ${v.signupOpen ? signup : ''}</p>
${v.signupOpen ? '' : signup}</div>`,
  );
}

export function signInFormPage(
  site: Site,
  v: { csrf: string; next: string; email?: string | undefined; error?: string | undefined; notice?: string | undefined; signupOpen: boolean },
): string {
  return layout(
    site,
    'Sign in',
    `<div class="card"><h1>Sign in to Tickler</h1>
${messages(v)}
${form(
  `${site.base}/signin`,
  v.csrf,
  `${field({ name: 'email', label: 'E-mail', type: 'email', value: v.email, autocomplete: 'username', required: true, autofocus: !v.error })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true })}
<button type="submit">Sign in</button>`,
  { hidden: [['next', v.next]] },
)}
<p class="muted"><a href="${h(site.base)}/reset">Forgot your password?</a>${v.signupOpen ? ` · <a href="${h(site.base)}/signup">Create an account</a>` : ''}</p></div>`,
    { narrow: true },
  );
}

export function signUpPage(site: Site, v: { csrf: string; access: SignupAccess; invite?: string | undefined; fields: Readonly<Record<string, string>>; error?: string | undefined }): string {
  if (v.access === 'closed' || v.access === 'needs-invite') {
    const why =
      v.access === 'closed'
        ? 'This server does not take new accounts on the web. Its operator creates them on the command line.'
        : v.invite
          ? 'This invitation has been used or has expired. Ask the admin who sent it for a new one.'
          : 'New accounts on this server are by invitation. Ask an admin of this server for an invitation link.';
    return layout(site, 'Create an account', `<div class="card"><h1>Create an account</h1>${messages({ error: v.error })}<p>${h(why)}</p><p><a href="${h(site.base)}/signin">Sign in</a></p></div>`, { narrow: true });
  }
  return layout(
    site,
    'Create an account',
    `<div class="card"><h1>Create an account</h1>
${messages({ error: v.error })}
${v.access === 'invited' ? '<p class="notice">You were invited: this link creates one account.</p>' : ''}
${form(
  `${site.base}/signup`,
  v.csrf,
  `${field({ name: 'email', label: 'E-mail', type: 'email', value: v.fields['email'], autocomplete: 'email', required: true, autofocus: !v.error, hint: 'You sign in with it; password-reset links go there.' })}
${field({ name: 'alias', label: 'Your name (optional)', value: v.fields['alias'], autocomplete: 'nickname', hint: 'Shown to the apps you allow.' })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${MIN_PASSWORD_LENGTH} characters; a few words make a good one.` })}
<button type="submit">Create the account</button>`,
  { hidden: v.invite ? [['invite', v.invite]] : [] },
)}
<p class="muted">Already have one? <a href="${h(site.base)}/signin">Sign in</a></p></div>`,
    { narrow: true },
  );
}

export function resetRequestPage(site: Site, v: { csrf: string; byMail: boolean; email?: string | undefined; error?: string | undefined; notice?: string | undefined }): string {
  const body = v.byMail
    ? form(
        `${site.base}/reset`,
        v.csrf,
        `${field({ name: 'email', label: 'E-mail', type: 'email', value: v.email, autocomplete: 'username', required: true, autofocus: !v.error })}
<button type="submit">Send a reset link</button>`,
      )
    : '<p>This server sends no e-mail. Ask an admin of this server for a reset link: they make one with <code>bin/tickler user reset-link</code>.</p>';
  return layout(
    site,
    'Reset your password',
    `<div class="card"><h1>Reset your password</h1>${messages(v)}
${v.byMail ? '<p>Type the e-mail address of your account. If it has one here, a link to choose a new password goes there; it works once, within an hour.</p>' : ''}
${body}
<p class="muted"><a href="${h(site.base)}/signin">Back to sign in</a></p></div>`,
    { narrow: true },
  );
}

export function newPasswordPage(site: Site, v: { csrf: string; token: string; valid: boolean; error?: string | undefined }): string {
  if (!v.valid) {
    return layout(
      site,
      'Reset your password',
      `<div class="card"><h1>This link cannot be used</h1><p>It was used already, replaced by a newer one, or has expired.</p><p><a href="${h(site.base)}/reset">Ask for a new one</a></p></div>`,
      { narrow: true },
    );
  }
  return layout(
    site,
    'Choose a new password',
    `<div class="card"><h1>Choose a new password</h1>${messages({ error: v.error })}
${form(
  `${site.base}/reset/password`,
  v.csrf,
  `${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, autofocus: !v.error, hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
<button type="submit">Set the password</button>`,
  { hidden: [['token', v.token]] },
)}
<p class="muted">Every browser signed in to the account is signed out.</p></div>`,
    { narrow: true },
  );
}

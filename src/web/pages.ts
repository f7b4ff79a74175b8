import { describeScope } from '../oauth/scopes.js';
import { h, hiddenFields, layout, messages, type Site } from './html.js';

export interface FormContext {
  readonly site: Site;
  /** Where the forms post (the authorize address). */
  readonly action: string;
  readonly csrf: string;
}

/**
 * `request`: the authorization request, carried to the consent page that follows sign-in and
 * checked again there. Editing it changes only what that page shows, never what it grants.
 * Cancel answers the app with access_denied, as Deny does on the consent page.
 */
export function signInPage(
  ctx: FormContext & {
    request: ReadonlyArray<readonly [string, string | undefined]>;
    appName: string;
    email?: string | undefined;
    error?: string | undefined;
    resetPath: string;
  },
): string {
  return layout(
    ctx.site,
    'Sign in',
    `<div class="card"><h1>Sign in to continue to ${h(ctx.appName)}</h1>
${messages({ error: ctx.error })}
<p class="muted">${h(ctx.appName)} asks to use your account on this Tickler server. Your password stays here: the app never sees it.</p>
<form method="post" action="${h(ctx.action)}">
${hiddenFields([...ctx.request, ['_csrf', ctx.csrf], ['action', 'signin']])}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${h(ctx.email ?? '')}"${ctx.error ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
<button type="submit" name="cancel" value="1" class="secondary" formnovalidate>Cancel</button>
</form>
<p class="muted"><a href="${h(ctx.resetPath)}">Forgot your password?</a></p></div>`,
    { narrow: true },
  );
}

/**
 * Everything the answer will grant is on the page: the app, each scope, and the address the
 * browser is sent to. The forms carry only `requestId`, the pending request kept on the server.
 */
export function consentPage(
  ctx: FormContext & {
    requestId: string;
    appName: string;
    website: string | null;
    iconPath: string | null;
    email: string;
    scopeWords: readonly string[];
    redirectUri: string;
  },
): string {
  const items = ctx.scopeWords
    .map((w) => describeScope(w))
    .map((d) => `<li${d.known ? '' : ' class="muted"'}>${h(d.text)}</li>`)
    .join('');
  const icon = ctx.iconPath ? `<img src="${h(ctx.iconPath)}" alt="">` : '';
  const website = ctx.website ? `<p class="muted">Its web site: ${h(ctx.website)}</p>` : '';
  return layout(
    ctx.site,
    'Allow access',
    `<div class="card"><div class="row">${icon}<div class="grow"><h1 tabindex="-1" autofocus>Allow ${h(ctx.appName)} to use your Tickler account?</h1></div></div>
<p>Signed in as <strong>${h(ctx.email)}</strong>.</p>
${website}
<p>${h(ctx.appName)} asks to:</p>
<ul class="scopes">${items}</ul>
<p class="muted">Your answer goes to <strong>${h(ctx.redirectUri)}</strong>. You can end this access at any time under Connected apps.</p>
<form method="post" action="${h(ctx.action)}">
${hiddenFields([['request', ctx.requestId], ['_csrf', ctx.csrf]])}
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
</form>
<form method="post" action="${h(ctx.action)}">
${hiddenFields([['request', ctx.requestId], ['_csrf', ctx.csrf], ['action', 'signout']])}
<p class="muted">Not you? <button type="submit" class="link">Sign in as someone else</button></p>
</form></div>`,
    { narrow: true },
  );
}

export function errorPage(site: Site, title: string, message: string): string {
  return layout(site, title, `<div class="card"><h1>${h(title)}</h1><p>${h(message)}</p><p><a href="${h(site.base)}/">Go to the start page</a></p></div>`, { narrow: true });
}

/** A form post refused for where it came from: no CSRF token of this browser, or another site. */
export function formRefusedPage(site: Site): string {
  return errorPage(site, 'Please try again', 'This form has expired or did not come from this site. Go back and start again.');
}

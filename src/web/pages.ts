import { describeScope } from '../oauth/scopes.js';
import { h, hiddenFields, layout } from './html.js';

export interface FormContext {
  /** Where the forms post (the authorize address). */
  readonly action: string;
  readonly csrf: string;
}

/**
 * `request`: the authorization request, carried to the consent page that follows sign-in and
 * checked again there. Editing it changes only what that page shows, never what it grants.
 */
export function signInPage(
  ctx: FormContext & { request: ReadonlyArray<readonly [string, string | undefined]>; appName: string; email?: string; error?: string },
): string {
  return layout(
    'Sign in',
    `<h1>Sign in to continue to ${h(ctx.appName)}</h1>
${ctx.error ? `<p class="error" role="alert">${h(ctx.error)}</p>` : ''}
<form method="post" action="${h(ctx.action)}">
${hiddenFields([...ctx.request, ['_csrf', ctx.csrf], ['action', 'signin']])}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${h(ctx.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

/**
 * Everything the answer will grant is on the page: the app, each scope, and the address the
 * browser is sent to. The forms carry only `requestId`, the pending request kept on the server.
 */
export function consentPage(
  ctx: FormContext & { requestId: string; appName: string; email: string; scopeWords: readonly string[]; redirectUri: string },
): string {
  const items = ctx.scopeWords
    .map((w) => describeScope(w))
    .map((d) => `<li${d.known ? '' : ' class="muted"'}>${h(d.text)}</li>`)
    .join('');
  return layout(
    'Allow access',
    `<h1>Allow ${h(ctx.appName)} to use your Tickler account?</h1>
<p>Signed in as <strong>${h(ctx.email)}</strong>.</p>
<p>${h(ctx.appName)} asks to:</p>
<ul class="scopes">${items}</ul>
<p class="muted">Your answer goes to <strong>${h(ctx.redirectUri)}</strong>.</p>
<form method="post" action="${h(ctx.action)}">
${hiddenFields([['request', ctx.requestId], ['_csrf', ctx.csrf]])}
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
</form>
<form method="post" action="${h(ctx.action)}">
${hiddenFields([['request', ctx.requestId], ['_csrf', ctx.csrf], ['action', 'signout']])}
<p class="muted">Not you? <button type="submit" class="link">Sign in as someone else</button></p>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${h(title)}</h1><p>${h(message)}</p>`);
}

/** A form post refused for where it came from: no CSRF token of this browser, or another site. */
export function formRefusedPage(): string {
  return errorPage('Please try again', 'This form has expired or did not come from this site. Go back to the application and start again.');
}

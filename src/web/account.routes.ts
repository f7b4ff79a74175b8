import type { FastifyReply, FastifyRequest } from 'fastify';
import { changeEmail, updateSettings } from '../features/users/settings.service.js';
import { signIn } from '../features/users/signin.service.js';
import { deleteAccount, InvalidInput, setPassword } from '../features/users/users.service.js';
import type { Params } from '../http/params.js';
import { PREF_NAMES, UniqueViolation } from '../storage/store.js';
import { deletePage, passwordPage, settingsPage } from './views/account.js';
import { minutes, type SignedIn, type Web } from './web-kit.js';

/**
 * The account pages. Whatever changes who can get in (the e-mail address, the password) or
 * removes the account needs the current password, checked through the sign-in throttle: a stolen
 * session cannot be used to guess it.
 */
export function accountRoutes(web: Web): void {
  const { deps } = web;

  /**
   * Checks the password of the signed-in person, counted like a sign-in. True when it is wrong (or
   * throttled): then the refusal's redirect has been sent. A boolean, not the reply: a Fastify
   * reply is a thenable, and awaiting one returned from an async function waits for the answer to
   * be sent and yields undefined, which would read as "no refusal".
   */
  async function passwordRefused(request: FastifyRequest, reply: FastifyReply, who: SignedIn, password: string, back: string): Promise<boolean> {
    const result = await signIn(deps, { email: who.account.email, password, deviceToken: request.cookies[web.names.device], address: request.ip });
    if (result.kind === 'ok' && result.userPk === who.account.pk) return false;
    if (result.kind === 'throttled') {
      web.redirect(request, reply, back, { error: `Too many password attempts. Try again in ${minutes(result.retryAfterSeconds)}.`, retryAfter: result.retryAfterSeconds });
    } else {
      web.redirect(request, reply, back, { error: 'That is not your current password.' });
    }
    return true;
  }

  web.getSignedIn('/account', async function showAccount(request, reply, who) {
    const flash = web.flash(request, reply);
    const v = { account: who.account, csrf: web.csrf(reply), error: flash.error, notice: flash.notice, fields: flash.fields };
    return web.page(reply, 200, settingsPage(web.site, web.nav(reply, who, '/account'), v));
  });

  const prefFields = (p: Params): Record<string, string> =>
    Object.fromEntries(PREF_NAMES.map((n) => [n, p.get(n)]).filter((kv): kv is [string, string] => kv[1] !== undefined));

  web.postSignedIn('/account/settings', ['alias', ...PREF_NAMES], async function saveSettings(request, reply, p, who) {
    const fields = { alias: p.get('alias') ?? '', ...prefFields(p) };
    try {
      await updateSettings(deps, who.account, { alias: fields.alias, prefs: prefFields(p) });
      return web.redirect(request, reply, '/account', { notice: 'Your settings are saved.' });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, '/account', { error: `Not saved: ${err.message}.`, fields });
      throw err;
    }
  });

  web.postSignedIn('/account/email', ['email', 'password'], async function saveEmail(request, reply, p, who) {
    const email = p.get('email') ?? '';
    if (await passwordRefused(request, reply, who, p.get('password') ?? '', '/account')) return reply;
    try {
      const changed = await changeEmail(deps, who.account, email);
      return web.redirect(request, reply, '/account', { notice: `You now sign in as ${changed.email}.` });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, '/account', { error: `Not changed: ${err.message}.`, fields: { email } });
      if (err instanceof UniqueViolation) return web.redirect(request, reply, '/account', { error: 'Not changed: another account has that address.', fields: { email } });
      throw err;
    }
  });

  web.getSignedIn('/account/password', async function showPassword(request, reply, who) {
    const flash = web.flash(request, reply);
    if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, passwordPage(web.site, web.nav(reply, who, '/account'), { csrf: web.csrf(reply), error: flash.error }));
  });

  web.postSignedIn('/account/password', ['current', 'password'], async function savePassword(request, reply, p, who) {
    if (await passwordRefused(request, reply, who, p.get('current') ?? '', '/account/password')) return reply;
    try {
      // This browser stays signed in; every other session of the account ends.
      await setPassword(deps, who.account.pk, p.get('password') ?? '', web.sessionHash(who));
      return web.redirect(request, reply, '/account', { notice: 'Your password is changed. Other browsers signed in to your account are signed out.' });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, '/account/password', { error: `Not changed: ${err.message}.` });
      throw err;
    }
  });

  web.getSignedIn('/account/delete', async function showDelete(request, reply, who) {
    const flash = web.flash(request, reply);
    const apps = (await deps.store.read.clients.list(who.account.pk)).length;
    if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    const v = { csrf: web.csrf(reply), email: who.account.email, apps, error: flash.error };
    return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, deletePage(web.site, web.nav(reply, who, '/account'), v));
  });

  web.postSignedIn('/account/delete', ['password'], async function removeAccount(request, reply, p, who) {
    if (await passwordRefused(request, reply, who, p.get('password') ?? '', '/account/delete')) return reply;
    await deleteAccount(deps, who.account.pk);
    await web.endSession(request, reply);
    return web.redirect(request, reply, '/signin', { notice: 'Your account and all its data are deleted.' });
  });
}

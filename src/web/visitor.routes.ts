import { openLink } from '../features/users/links.service.js';
import { requestReset, resetPassword } from '../features/users/reset.service.js';
import { signIn } from '../features/users/signin.service.js';
import { signUp, signupAccess } from '../features/users/signup.service.js';
import { InvalidInput } from '../features/users/users.service.js';
import { showTaskList } from './tasks/tasks.routes.js';
import { landingPage, newPasswordPage, resetRequestPage, signInFormPage, signUpPage } from './views/visitor.js';
import { minutes, queryStrings, safeNext, type Web } from './web-kit.js';

/**
 * The start page, sign-in and sign-out, sign-up and password reset. Every post answers with a
 * redirect (Post/Redirect/Get); its message travels in the sealed flash cookie.
 */
export function visitorRoutes(web: Web): void {
  const { deps } = web;

  web.get('/', async function start(request, reply) {
    const who = await web.signedIn(request);
    // Signed in, the start page is the person's task list (src/web/tasks/).
    if (who) return showTaskList(web, request, reply, who);
    web.flash(request, reply);
    const noAccounts = !(await deps.store.read.accounts.hasAny());
    const mode = deps.config.registration;
    return web.page(reply, 200, landingPage(web.site, { signupOpen: mode === 'open', inviteOnly: mode === 'invite', noAccounts }));
  });

  web.get('/signin', async function showSignIn(request, reply) {
    const flash = web.flash(request, reply);
    const next = safeNext(queryStrings(request)['next']);
    if (await web.signedIn(request)) return web.redirect(request, reply, next);
    if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    const v = { csrf: web.csrf(reply), next, email: flash.fields?.['email'], error: flash.error, notice: flash.notice, signupOpen: deps.config.registration === 'open' };
    return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, signInFormPage(web.site, v));
  });

  web.post('/signin', ['email', 'password', 'next'], async function submitSignIn(request, reply, p) {
    const email = p.get('email') ?? '';
    const next = safeNext(p.get('next'));
    const back = `/signin?next=${encodeURIComponent(next)}`;
    const result = await signIn(deps, { email, password: p.get('password') ?? '', deviceToken: request.cookies[web.names.device], address: request.ip });
    if (result.kind === 'throttled') {
      const error = `Too many sign-in attempts. Try again in ${minutes(result.retryAfterSeconds)}.`;
      return web.redirect(request, reply, back, { error, fields: { email }, retryAfter: result.retryAfterSeconds });
    }
    if (result.kind === 'wrong') return web.redirect(request, reply, back, { error: 'That e-mail address and password do not match an account.', fields: { email } });
    await web.startSession(request, reply, result.userPk, result.knownDevice);
    return web.redirect(request, reply, next);
  });

  // signedIn: a browser whose session has already ended is told so, rather than refused as forged.
  web.post(
    '/signout',
    [],
    async function signOut(request, reply) {
      await web.endSession(request, reply);
      return web.redirect(request, reply, '/signin', { notice: 'You are signed out.' });
    },
    { signedIn: true },
  );

  web.get('/signup', async function showSignUp(request, reply) {
    const flash = web.flash(request, reply);
    const invite = queryStrings(request)['invite'] ?? flash.fields?.['invite'];
    const valid = (await openLink(deps, 'invite', invite)) !== null;
    const access = await signupAccess(deps, valid);
    if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    const v = { csrf: web.csrf(reply), access, invite, fields: flash.fields ?? {}, error: flash.error };
    return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, signUpPage(web.site, v));
  });

  web.post('/signup', ['email', 'password', 'alias', 'invite'], async function submitSignUp(request, reply, p) {
    const fields = { email: p.get('email') ?? '', alias: p.get('alias') ?? '', ...(p.text('invite') && { invite: p.text('invite') as string }) };
    const back = p.text('invite') ? `/signup?invite=${encodeURIComponent(p.text('invite') as string)}` : '/signup';
    try {
      const result = await signUp(deps, { email: fields.email, password: p.get('password') ?? '', alias: fields.alias, invite: p.text('invite'), address: request.ip });
      if (result.kind === 'throttled') {
        return web.redirect(request, reply, back, { error: `Too many new accounts from your address. Try again in ${minutes(result.retryAfterSeconds)}.`, fields, retryAfter: result.retryAfterSeconds });
      }
      if (result.kind === 'taken') return web.redirect(request, reply, back, { error: 'An account with that e-mail address exists already. Sign in, or reset its password.', fields });
      if (result.kind === 'refused') return web.redirect(request, reply, back, { fields });
      await web.startSession(request, reply, result.account.pk, false);
      return web.redirect(request, reply, '/', { notice: 'Welcome! Your account is ready.' });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, back, { error: `Please check the form: ${err.message}.`, fields });
      throw err;
    }
  });

  web.get('/reset', async function showReset(request, reply) {
    const flash = web.flash(request, reply);
    const token = queryStrings(request)['token'];
    if (token !== undefined) {
      const valid = (await openLink(deps, 'reset', token)) !== null;
      return web.page(reply, valid ? 200 : 400, newPasswordPage(web.site, { csrf: web.csrf(reply), token, valid, error: flash.error }));
    }
    if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    const v = { csrf: web.csrf(reply), byMail: deps.mailer !== null, email: flash.fields?.['email'], error: flash.error, notice: flash.notice };
    return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, resetRequestPage(web.site, v));
  });

  web.post('/reset', ['email'], async function submitReset(request, reply, p) {
    const email = p.get('email') ?? '';
    const result = await requestReset(deps, { email, address: request.ip });
    if (result.kind === 'throttled') {
      return web.redirect(request, reply, '/reset', { error: `Too many requests. Try again in ${minutes(result.retryAfterSeconds)}.`, fields: { email }, retryAfter: result.retryAfterSeconds });
    }
    if (result.kind === 'unavailable') return web.redirect(request, reply, '/reset');
    // Not awaited: the answer must not take longer when the address has an account.
    result.sending?.catch((err: unknown) => request.log.error({ err }, 'sending a password-reset e-mail failed'));
    return web.redirect(request, reply, '/reset', { notice: `If ${email.trim()} belongs to an account here, a link is on its way. It works once, within an hour.` });
  });

  web.post('/reset/password', ['token', 'password'], async function submitNewPassword(request, reply, p) {
    const token = p.text('token') ?? '';
    try {
      const result = await resetPassword(deps, token, p.get('password') ?? '');
      if (result.kind === 'expired') return web.redirect(request, reply, `/reset?token=${encodeURIComponent(token)}`);
      return web.redirect(request, reply, '/signin', { notice: 'Your password is changed. Sign in with it. Check Connected apps for any app you do not know.' });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, `/reset?token=${encodeURIComponent(token)}`, { error: `Please choose another password: ${err.message}.` });
      throw err;
    }
  });
}

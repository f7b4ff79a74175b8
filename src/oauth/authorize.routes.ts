import type { FastifyReply, FastifyRequest } from 'fastify';
import { signIn } from '../features/users/signin.service.js';
import { paramsOf, type Params } from '../http/params.js';
import { consentPage, signInPage } from '../web/pages.js';
import { minutes, type Web } from '../web/web-kit.js';
import { AUTHORIZE_PARAMS, checkAuthorizeRequest, deny, redirectTarget, type AuthorizeParams, type ValidAuthorizeRequest } from './authorize.service.js';
import { answerConsent, findConsent, openConsent, shownTo } from './consent.service.js';

export const PATH = '/3/account/authorize.php';
/** The fields of this server's own forms besides the authorization request; none is ever sent twice. */
const FORM_FIELDS = ['_csrf', 'action', 'cancel', 'email', 'password', 'request'] as const;

function authorizeParams(p: Params): AuthorizeParams {
  return {
    repeated: p.repeatedAmong(AUTHORIZE_PARAMS),
    responseType: p.get('response_type'),
    clientId: p.text('client_id'),
    state: p.get('state'),
    scope: p.get('scope'),
    // RFC 6749 3.1: a parameter sent without a value is treated as omitted (as the token endpoint does).
    redirectUri: p.get('redirect_uri') || undefined,
    codeChallenge: p.text('code_challenge'),
    codeChallengeMethod: p.text('code_challenge_method'),
  };
}

/** A checked request as its parameters: carried by the sign-in form to the consent page that follows. */
function carried(req: ValidAuthorizeRequest): Array<readonly [string, string | undefined]> {
  return [
    ['response_type', 'code'],
    ['client_id', req.client.clientId],
    ['state', req.state],
    ['scope', req.scope],
    ['redirect_uri', req.redirectUri ?? undefined],
    ['code_challenge', req.codeChallenge ?? undefined],
    ['code_challenge_method', req.codeChallenge === null ? undefined : 'S256'],
  ];
}

/** The authorize address again, with a checked request's parameters: where sign-in and consent posts redirect. */
function again(req: ValidAuthorizeRequest): string {
  const query = new URLSearchParams(carried(req).filter((kv): kv is [string, string] => kv[1] !== undefined));
  return `${PATH}?${query.toString()}`;
}

export function authorizeRoutes(web: Web): void {
  const { deps } = web;
  const action = web.path(PATH);

  const notUnderstood = (reply: FastifyReply): FastifyReply => web.errorPage(reply, 400, 'Bad request', 'The form was not understood. Go back and try again.');
  const expired = (reply: FastifyReply): FastifyReply =>
    web.errorPage(reply, 400, 'This page has expired', 'It was answered already, or left open too long. Go back to the application and start again.');

  /**
   * The consent page for the account signed in now, or the sign-in form. Each consent page is a
   * new pending request, kept on the server and bound to this session: its form answers only it.
   * A sign-in that failed comes back here with its message (Post/Redirect/Get); a throttled one
   * answers 429 with Retry-After.
   */
  async function showConsentOrSignIn(request: FastifyRequest, reply: FastifyReply, req: ValidAuthorizeRequest): Promise<FastifyReply> {
    const flash = web.flash(request, reply);
    const who = await web.signedIn(request);
    if (!who) {
      const form = { site: web.site, action, csrf: web.csrf(reply), request: carried(req), appName: req.client.name, resetPath: web.path('/reset') };
      if (flash.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
      return web.page(reply, flash.retryAfter !== undefined ? 429 : 200, signInPage({ ...form, email: flash.fields?.['email'], error: flash.error }));
    }
    const requestId = await openConsent(deps, req, who.sessionId, who.account.pk);
    const shown = {
      appName: req.client.name,
      website: req.client.website,
      iconPath: req.client.iconUpdatedAt === null ? null : web.path(`/apps/${req.client.clientId}/icon?v=${req.client.iconUpdatedAt}`),
      email: who.account.email,
      scopeWords: req.scopeWords,
      redirectUri: redirectTarget(req.client, req.redirectUri) ?? '',
    };
    return web.page(reply, 200, consentPage({ site: web.site, action, csrf: web.csrf(reply), requestId, ...shown }));
  }

  /** Runs the checks of an authorization request; answers the request itself unless it is valid. */
  async function validRequest(reply: FastifyReply, a: AuthorizeParams): Promise<ValidAuthorizeRequest | undefined> {
    const check = await checkAuthorizeRequest(deps, a);
    if (check.kind === 'page') {
      web.errorPage(reply, 400, 'This link cannot be used', check.message);
      return undefined;
    }
    if (check.kind === 'redirect') {
      reply.header('cache-control', 'no-store').redirect(check.location, 302);
      return undefined;
    }
    return check.request;
  }

  async function submitSignIn(request: FastifyRequest, reply: FastifyReply, p: Params): Promise<FastifyReply> {
    const req = await validRequest(reply, authorizeParams(p));
    if (!req) return reply;
    // Cancel on the sign-in step answers the app as Deny does (the request was checked again).
    if (p.has('cancel')) return reply.header('cache-control', 'no-store').redirect(deny(req), 303);
    const email = p.get('email') ?? '';
    const result = await signIn(deps, { email, password: p.get('password') ?? '', deviceToken: request.cookies[web.names.device], address: request.ip });
    // Post/Redirect/Get: a failure goes back to the form with its message, so that a reload
    // never asks to send the password again.
    if (result.kind === 'throttled') {
      const error = `Too many sign-in attempts. Try again in ${minutes(result.retryAfterSeconds)}.`;
      return web.redirect(request, reply, again(req), { error, fields: { email }, retryAfter: result.retryAfterSeconds });
    }
    if (result.kind === 'wrong') return web.redirect(request, reply, again(req), { error: 'That e-mail address and password do not match an account.', fields: { email } });
    await web.startSession(request, reply, result.userPk, result.knownDevice);
    // Back to this page, which now shows the consent form.
    return web.redirect(request, reply, again(req));
  }

  /** Allow, Deny or "sign in as someone else", from a consent page: each names its pending request. */
  async function submitConsent(request: FastifyRequest, reply: FastifyReply, p: Params, choice: 'allow' | 'deny' | 'signout'): Promise<FastifyReply> {
    // The request is read from the server, never from the form: a consent post that carries any
    // part of one was not made by this server's page.
    if (AUTHORIZE_PARAMS.some((name) => p.has(name))) return notUnderstood(reply);
    const requestId = p.text('request');
    const consent = await findConsent(deps, requestId);
    if (!consent || requestId === undefined) return expired(reply);
    const sessionId = request.cookies[web.names.session];
    // Only the session the page was shown to may use it, for any answer, and before anything is
    // said about it: a request id seen elsewhere must not carry its app's state and challenge into
    // another browser's pages or redirects (a code for the wrong account, delivered with the
    // victim's state). Another tab that signed in as someone else since makes the page expire:
    // start again from the app.
    if (sessionId === undefined || !shownTo(consent, sessionId)) return expired(reply);
    if (choice === 'signout') {
      await web.endSession(request, reply);
      return web.redirect(request, reply, again(consent.request));
    }
    if ((await web.signedIn(request)) === null) {
      return web.redirect(request, reply, again(consent.request), { error: 'Your session has ended. Please sign in again.' });
    }
    const location = await answerConsent(deps, requestId, sessionId, choice === 'allow');
    // Answered in the meantime (a second click, another tab): one consent, one code.
    if (location === null) return expired(reply);
    return reply.header('cache-control', 'no-store').redirect(location, 303);
  }

  web.get(PATH, async function showAuthorize(request, reply) {
    const req = await validRequest(reply, authorizeParams(paramsOf(request)));
    return req ? showConsentOrSignIn(request, reply, req) : reply;
  });

  web.post(PATH, FORM_FIELDS, async function submitAuthorize(request, reply, p) {
    const choice = p.text('action');
    if (choice === 'signin') return submitSignIn(request, reply, p);
    if (choice === 'allow' || choice === 'deny' || choice === 'signout') return submitConsent(request, reply, p, choice);
    return notUnderstood(reply);
  });
}

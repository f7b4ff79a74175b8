import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { signIn } from '../features/users/signin.service.js';
import { randomUrlToken } from '../lib/crypto.js';
import { paramsOf, type Params } from '../http/params.js';
import { pageHeaders } from '../web/html.js';
import { isCrossSitePost } from '../web/cross-site.js';
import { consentPage, errorPage, formRefusedPage, signInPage } from '../web/pages.js';
import { endSession, sessionAccount, startSession } from '../web/sessions.service.js';
import { AUTHORIZE_PARAMS, checkAuthorizeRequest, type AuthorizeParams, type ValidAuthorizeRequest } from './authorize.service.js';
import { answerConsent, findConsent, openConsent, shownTo } from './consent.service.js';

const PATH = '/3/account/authorize.php';
const DEVICE_COOKIE_DAYS = 400;
/** The fields of this server's own forms besides the authorization request; none is ever sent twice. */
const FORM_FIELDS = ['_csrf', 'action', 'email', 'password', 'request'] as const;

interface CookieNames {
  readonly session: string;
  readonly device: string;
  readonly csrf: string;
}

/** Over https the cookies take the __Host- prefix: host-only, Secure, Path=/ enforced by browsers. */
export function cookieNames(https: boolean): CookieNames {
  const prefix = https ? '__Host-' : '';
  return { session: `${prefix}tickler_session`, device: `${prefix}tickler_device`, csrf: `${prefix}tickler_csrf` };
}

/**
 * HttpOnly: scripts never see them. SameSite=Lax: sent on the top-level navigation that brings the
 * user from the app to the authorize page (Strict would drop the session there), withheld from
 * cross-site form posts. Secure whenever the public address is https.
 */
export function cookieOptions(https: boolean, maxAgeSeconds?: number) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: https, ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }) };
}

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

export function authorizeRoutes(app: FastifyInstance, deps: Deps): void {
  const https = deps.config.publicHttps;
  const names = cookieNames(https);
  const basePath = new URL(deps.config.publicUrl).pathname.replace(/\/+$/, '');
  const action = `${basePath}${PATH}`;
  const publicOrigin = new URL(deps.config.publicUrl).origin;

  const page = (reply: FastifyReply, status: number, html: string): FastifyReply => pageHeaders(reply.status(status)).send(html);
  const notUnderstood = (reply: FastifyReply): FastifyReply =>
    page(reply, 400, errorPage('Bad request', 'The form was not understood. Go back and try again.'));
  const expired = (reply: FastifyReply): FastifyReply =>
    page(reply, 400, errorPage('This page has expired', 'It was answered already, or left open too long. Go back to the application and start again.'));

  /**
   * The consent page for the account signed in now, or the sign-in form. Each consent page is a
   * new pending request, kept on the server and bound to this session: its form answers only it.
   */
  async function showConsentOrSignIn(request: FastifyRequest, reply: FastifyReply, req: ValidAuthorizeRequest, notice?: string): Promise<FastifyReply> {
    const sessionId = request.cookies[names.session];
    const userPk = await sessionAccount(deps, sessionId);
    const account = userPk === null ? null : await deps.store.read.accounts.get(userPk);
    if (!account || sessionId === undefined) {
      const form = { action, csrf: reply.generateCsrf(), request: carried(req), appName: req.client.name };
      return page(reply, 200, signInPage({ ...form, ...(notice && { error: notice }) }));
    }
    const requestId = await openConsent(deps, req, sessionId, account.pk);
    const shown = { appName: req.client.name, email: account.email, scopeWords: req.scopeWords, redirectUri: req.client.redirectUri };
    return page(reply, 200, consentPage({ action, csrf: reply.generateCsrf(), requestId, ...shown }));
  }

  /** Answers 503 in maintenance; true when it did. */
  function inMaintenance(reply: FastifyReply): boolean {
    if (!deps.config.maintenance) return false;
    reply.header('retry-after', '300');
    page(reply, 503, errorPage('Down for maintenance', 'This server is being maintained. Please try again in a few minutes.'));
    return true;
  }

  /** Runs the checks of an authorization request; answers the request itself unless it is valid. */
  async function validRequest(reply: FastifyReply, a: AuthorizeParams): Promise<ValidAuthorizeRequest | undefined> {
    const check = await checkAuthorizeRequest(deps, a);
    if (check.kind === 'page') {
      page(reply, 400, errorPage('This link cannot be used', check.message));
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
    const email = p.get('email') ?? '';
    const result = await signIn(deps, { email, password: p.get('password') ?? '', deviceToken: request.cookies[names.device], address: request.ip });
    const form = { action, csrf: reply.generateCsrf(), request: carried(req), appName: req.client.name, email };
    if (result.kind === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      return page(reply, 429, signInPage({ ...form, error: `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }));
    }
    if (result.kind === 'wrong') return page(reply, 200, signInPage({ ...form, error: 'That e-mail address and password do not match an account.' }));
    // A fresh session id on every sign-in (no session fixation); the old one ends.
    await endSession(deps, request.cookies[names.session]);
    // Keep the browser's device cookie only if this server issued it for this account; a
    // cookie planted by someone else is never adopted.
    const presented = request.cookies[names.device];
    const device = result.knownDevice && presented ? presented : randomUrlToken();
    const session = await startSession(deps, result.userPk, device);
    reply.setCookie(names.session, session.sessionId, cookieOptions(https, deps.config.sessionTtlSeconds));
    reply.setCookie(names.device, device, cookieOptions(https, DEVICE_COOKIE_DAYS * 86400));
    // Post/redirect/get back to this page, which now shows the consent form.
    const query = new URLSearchParams(carried(req).filter((kv): kv is [string, string] => kv[1] !== undefined));
    return reply.redirect(`${action}?${query.toString()}`, 303);
  }

  /** Allow, Deny or "sign in as someone else", from a consent page: each names its pending request. */
  async function submitConsent(request: FastifyRequest, reply: FastifyReply, p: Params, choice: 'allow' | 'deny' | 'signout'): Promise<FastifyReply> {
    // The request is read from the server, never from the form: a consent post that carries any
    // part of one was not made by this server's page.
    if (AUTHORIZE_PARAMS.some((name) => p.has(name))) return notUnderstood(reply);
    const requestId = p.text('request');
    const consent = await findConsent(deps, requestId);
    if (!consent || requestId === undefined) return expired(reply);
    const sessionId = request.cookies[names.session];
    if (sessionId === undefined || (await sessionAccount(deps, sessionId)) === null) {
      return showConsentOrSignIn(request, reply, consent.request, 'Your session has ended. Please sign in again.');
    }
    // Only the session the page was shown to may use it, for any answer: a request id seen
    // elsewhere must not carry its app's state and challenge into another browser's pages (a
    // code for the wrong account, delivered with the victim's state). Another tab that signed in
    // as someone else since makes the page expire: start again from the app.
    if (!shownTo(consent, sessionId)) return expired(reply);
    if (choice === 'signout') {
      await endSession(deps, sessionId);
      reply.clearCookie(names.session, cookieOptions(https));
      return showConsentOrSignIn(request, reply, consent.request);
    }
    const location = await answerConsent(deps, requestId, sessionId, choice === 'allow');
    // Answered in the meantime (a second click, another tab): one consent, one code.
    if (location === null) return expired(reply);
    return reply.header('cache-control', 'no-store').redirect(location, 303);
  }

  app.route({
    method: 'GET',
    url: PATH,
    config: { kind: 'page' },
    handler: async function showAuthorize(request, reply) {
      if (inMaintenance(reply)) return reply;
      const req = await validRequest(reply, authorizeParams(paramsOf(request)));
      return req ? showConsentOrSignIn(request, reply, req) : reply;
    },
  });

  app.route({
    method: 'POST',
    url: PATH,
    config: { kind: 'page' },
    // Where the post comes from is checked before its token: another site's post never gets further.
    preHandler: [
      async function refuseCrossSite(request, reply) {
        if (isCrossSitePost(request, publicOrigin)) return page(reply, 403, formRefusedPage());
        return undefined;
      },
      app.csrfProtection,
    ],
    handler: async function submitAuthorize(request, reply) {
      if (inMaintenance(reply)) return reply;
      const p = paramsOf(request);
      if (p.repeatedAmong(FORM_FIELDS)) return notUnderstood(reply);
      const choice = p.text('action');
      if (choice === 'signin') return submitSignIn(request, reply, p);
      if (choice === 'allow' || choice === 'deny' || choice === 'signout') return submitConsent(request, reply, p, choice);
      return notUnderstood(reply);
    },
  });
}

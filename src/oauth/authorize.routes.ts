import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { signIn } from '../features/users/signin.service.js';
import { randomUrlToken } from '../lib/crypto.js';
import { paramsOf, type Params } from '../http/params.js';
import { pageHeaders } from '../web/html.js';
import { consentPage, errorPage, signInPage, type FormContext } from '../web/pages.js';
import { endSession, sessionAccount, startSession } from '../web/sessions.service.js';
import { approve, AUTHORIZE_PARAMS, checkAuthorizeRequest, deny, type AuthorizeParams, type ValidAuthorizeRequest } from './authorize.service.js';

const PATH = '/3/account/authorize.php';
/** The fields of this server's own forms besides the authorization request; none is ever sent twice. */
const FORM_FIELDS = ['_csrf', 'action', 'email', 'password'] as const;
const DEVICE_COOKIE_DAYS = 400;

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
    redirectUri: p.get('redirect_uri'),
    codeChallenge: p.text('code_challenge'),
    codeChallengeMethod: p.text('code_challenge_method'),
  };
}

/** The request's own parameters, carried through the forms (hidden fields) and the redirect after sign-in. */
function carried(a: AuthorizeParams): Array<readonly [string, string | undefined]> {
  return [
    ['response_type', a.responseType],
    ['client_id', a.clientId],
    ['state', a.state],
    ['scope', a.scope],
    ['redirect_uri', a.redirectUri],
    ['code_challenge', a.codeChallenge],
    ['code_challenge_method', a.codeChallengeMethod],
  ];
}

export function authorizeRoutes(app: FastifyInstance, deps: Deps): void {
  const https = deps.config.publicHttps;
  const names = cookieNames(https);
  const basePath = new URL(deps.config.publicUrl).pathname.replace(/\/+$/, '');
  const action = `${basePath}${PATH}`;

  const page = (reply: FastifyReply, status: number, html: string): FastifyReply => pageHeaders(reply.status(status)).send(html);

  const form = (reply: FastifyReply, a: AuthorizeParams): FormContext => ({ action, csrf: reply.generateCsrf(), request: carried(a) });

  async function showConsentOrSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    a: AuthorizeParams,
    req: ValidAuthorizeRequest,
    notice?: string,
  ): Promise<FastifyReply> {
    const userPk = await sessionAccount(deps, request.cookies[names.session]);
    const account = userPk === null ? null : await deps.store.read.accounts.get(userPk);
    if (!account) return page(reply, 200, signInPage({ ...form(reply, a), appName: req.client.name, ...(notice && { error: notice }) }));
    return page(
      reply,
      200,
      consentPage({ ...form(reply, a), appName: req.client.name, email: account.email, userid: account.userid, scopeWords: req.scopeWords }),
    );
  }

  /** Runs the checks shared by GET and POST; answers the request itself unless it is valid. */
  async function validRequest(reply: FastifyReply, a: AuthorizeParams): Promise<ValidAuthorizeRequest | undefined> {
    if (deps.config.maintenance) {
      reply.header('retry-after', '300');
      page(reply, 503, errorPage('Down for maintenance', 'This server is being maintained. Please try again in a few minutes.'));
      return undefined;
    }
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

  app.route({
    method: 'GET',
    url: PATH,
    config: { kind: 'page' },
    handler: async function showAuthorize(request, reply) {
      const a = authorizeParams(paramsOf(request));
      const req = await validRequest(reply, a);
      return req ? showConsentOrSignIn(request, reply, a, req) : reply;
    },
  });

  app.route({
    method: 'POST',
    url: PATH,
    config: { kind: 'page' },
    preHandler: app.csrfProtection,
    handler: async function submitAuthorize(request, reply) {
      const p = paramsOf(request);
      if (p.repeatedAmong(FORM_FIELDS)) return page(reply, 400, errorPage('Bad request', 'The form was not understood. Go back and try again.'));
      const a = authorizeParams(p);
      const req = await validRequest(reply, a);
      if (!req) return reply;
      const sessionId = request.cookies[names.session];
      switch (p.text('action')) {
        case 'signin': {
          const email = p.get('email') ?? '';
          const result = await signIn(deps, {
            email,
            password: p.get('password') ?? '',
            deviceToken: request.cookies[names.device],
            address: request.ip,
          });
          if (result.kind === 'throttled') {
            reply.header('retry-after', String(result.retryAfterSeconds));
            const minutes = Math.ceil(result.retryAfterSeconds / 60);
            const error = `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
            return page(reply, 429, signInPage({ ...form(reply, a), appName: req.client.name, email, error }));
          }
          if (result.kind === 'wrong') {
            const error = 'That e-mail address and password do not match an account.';
            return page(reply, 200, signInPage({ ...form(reply, a), appName: req.client.name, email, error }));
          }
          // A fresh session id on every sign-in (no session fixation); the old one ends.
          await endSession(deps, sessionId);
          // Keep the browser's device cookie only if this server issued it for this account; a
          // cookie planted by someone else is never adopted.
          const presented = request.cookies[names.device];
          const device = result.knownDevice && presented ? presented : randomUrlToken();
          const session = await startSession(deps, result.userPk, device);
          reply.setCookie(names.session, session.sessionId, cookieOptions(https, deps.config.sessionTtlSeconds));
          reply.setCookie(names.device, device, cookieOptions(https, DEVICE_COOKIE_DAYS * 86400));
          // Post/redirect/get back to this page, which now shows the consent form.
          const query = new URLSearchParams(carried(a).filter((kv): kv is [string, string] => kv[1] !== undefined));
          return reply.redirect(`${action}?${query.toString()}`, 303);
        }
        case 'allow':
        case 'deny': {
          const userPk = await sessionAccount(deps, sessionId);
          if (userPk === null) return showConsentOrSignIn(request, reply, a, req, 'Your session has ended. Please sign in again.');
          // The answer must be for the account the page showed: another tab may have signed in
          // as someone else since. Then show the page again, for the account signed in now.
          const shown = p.text('account');
          if (shown !== (await deps.store.read.accounts.get(userPk))?.userid) return showConsentOrSignIn(request, reply, a, req);
          const location = p.text('action') === 'allow' ? await approve(deps, req, userPk) : deny(req);
          return reply.header('cache-control', 'no-store').redirect(location, 303);
        }
        case 'signout': {
          await endSession(deps, sessionId);
          reply.clearCookie(names.session, cookieOptions(https));
          return showConsentOrSignIn(request, reply, a, req);
        }
        default:
          return page(reply, 400, errorPage('Bad request', 'The form was not understood. Go back and try again.'));
      }
    },
  });
}

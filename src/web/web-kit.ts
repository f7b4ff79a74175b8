import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { paramsOf, type Params } from '../http/params.js';
import { randomUrlToken, sha256Hex } from '../lib/crypto.js';
import type { Account } from '../storage/store.js';
import { cookieNames, cookieOptions, type CookieNames } from './cookies.js';
import { isCrossSitePost } from './cross-site.js';
import { csrfToken } from './csrf.js';
import { setFlash, takeFlash, type Flash } from './flash.js';
import { pageHeaders, siteOf, type Nav, type Site } from './html.js';
import { errorPage, formRefusedPage } from './pages.js';
import { endSession, sessionAccount, startSession } from './sessions.service.js';

const DEVICE_COOKIE_DAYS = 400;

/** The person behind a request, from the session cookie the sign-in pages set. */
export interface SignedIn {
  readonly account: Account;
  readonly sessionId: string;
}

/**
 * What every page route shares: the site shown in the banner, the cookies, the session, the
 * flash of Post/Redirect/Get, and the checks every form post passes before its handler runs
 * (where it comes from, its CSRF token, maintenance). Built once per app.
 */
export class Web {
  readonly site: Site;
  readonly names: CookieNames;
  readonly https: boolean;
  readonly publicOrigin: string;
  /** Who sent a post that needs a session, found before its token was checked (post's `signedIn`). */
  private readonly posters = new WeakMap<FastifyRequest, SignedIn>();

  constructor(
    private readonly app: FastifyInstance,
    readonly deps: Deps,
  ) {
    this.site = siteOf(deps.config.publicUrl);
    this.https = deps.config.publicHttps;
    this.names = cookieNames(this.https);
    this.publicOrigin = new URL(deps.config.publicUrl).origin;
  }

  /** An address of this server as pages and redirects write it (PUBLIC_URL's path prefix first). */
  path(p: string): string {
    return `${this.site.base}${p}`;
  }

  /** An HTML page; `withScript`: a to-do page, whose policy allows this server's scripts. */
  page(reply: FastifyReply, status: number, html: string, withScript = false): FastifyReply {
    return pageHeaders(reply.status(status), withScript).send(html);
  }

  errorPage(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
    return this.page(reply, status, errorPage(this.site, title, message));
  }

  /** Post/Redirect/Get: a 303 to one of this server's pages, leaving `flash` for it. */
  redirect(request: FastifyRequest, reply: FastifyReply, to: string, flash?: Flash): FastifyReply {
    if (flash) setFlash(request, reply, this.names, this.https, flash);
    if (flash?.retryAfter !== undefined) reply.header('retry-after', String(flash.retryAfter));
    return reply.header('cache-control', 'no-store').redirect(this.path(to), 303);
  }

  flash(request: FastifyRequest, reply: FastifyReply): Flash {
    return takeFlash(request, reply, this.names, this.https);
  }

  async signedIn(request: FastifyRequest): Promise<SignedIn | null> {
    const sessionId = request.cookies[this.names.session];
    const userPk = await sessionAccount(this.deps, sessionId);
    const account = userPk === null ? null : await this.deps.store.read.accounts.get(userPk);
    return account && sessionId !== undefined ? { account, sessionId } : null;
  }

  /** The CSRF token of a form on this page, bound to the session the page is shown to (csrf.ts). */
  csrf(reply: FastifyReply): string {
    return csrfToken(reply, this.names.session);
  }

  nav(reply: FastifyReply, who: SignedIn, current: string): Nav {
    return { email: who.account.email, isAdmin: who.account.isAdmin, csrf: this.csrf(reply), current };
  }

  /**
   * Signs the browser in after a successful password check: a new session id every time (no
   * session fixation; the old session ends), and the device cookie kept only if this server
   * issued it for this account (a cookie planted by someone else is never adopted).
   */
  async startSession(request: FastifyRequest, reply: FastifyReply, userPk: number, knownDevice: boolean): Promise<void> {
    await endSession(this.deps, request.cookies[this.names.session]);
    const presented = request.cookies[this.names.device];
    const device = knownDevice && presented ? presented : randomUrlToken();
    const session = await startSession(this.deps, userPk, device);
    reply.setCookie(this.names.session, session.sessionId, cookieOptions(this.https, this.deps.config.sessionTtlSeconds));
    reply.setCookie(this.names.device, device, cookieOptions(this.https, DEVICE_COOKIE_DAYS * 86400));
  }

  async endSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await endSession(this.deps, request.cookies[this.names.session]);
    reply.clearCookie(this.names.session, cookieOptions(this.https));
  }

  sessionHash(who: SignedIn): string {
    return sha256Hex(who.sessionId);
  }

  /** Answers 503 in maintenance; true when it did. */
  inMaintenance(reply: FastifyReply): boolean {
    if (!this.deps.config.maintenance) return false;
    reply.header('retry-after', '300');
    this.errorPage(reply, 503, 'Down for maintenance', 'This server is being maintained. Please try again in a few minutes.');
    return true;
  }

  /** A page (GET). */
  get(url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>): void {
    const web = this;
    this.app.route({
      method: 'GET',
      url,
      config: { kind: 'page' },
      handler: async function showPage(request, reply) {
        if (web.inMaintenance(reply)) return reply;
        return handler(request, reply);
      },
    });
  }

  /** A page that needs a signed-in person; others are sent to sign in and brought back. */
  getSignedIn(url: string, handler: (request: FastifyRequest, reply: FastifyReply, who: SignedIn) => Promise<FastifyReply>): void {
    this.get(url, async (request, reply) => {
      const who = await this.signedIn(request);
      if (!who) return reply.header('cache-control', 'no-store').redirect(this.path(`/signin?next=${encodeURIComponent(request.url.split('?')[0] ?? '/')}`), 303);
      return handler(request, reply, who);
    });
  }

  /**
   * A form post. Where it comes from is checked before its CSRF token (another site's post never
   * gets further), then maintenance, then that no field it reads came twice (`fields`): a form
   * of this server never sends one twice, so which of two values counts is not for the sender
   * to choose. `signedIn`: a post that needs a session is sent to sign in without one before its
   * token is checked, since a token is bound to the session of its page (csrf.ts): a page left
   * open past its session's end would otherwise be refused as if forged, where "sign in again"
   * is the truth. Nothing runs for such a post but the redirect.
   */
  post(
    url: string,
    fields: readonly string[],
    handler: (request: FastifyRequest, reply: FastifyReply, p: Params) => Promise<FastifyReply>,
    options: { readonly signedIn?: boolean } = {},
  ): void {
    const web = this;
    const checked: readonly string[] = [...fields, '_csrf'];
    const preHandler = [
      async function refuseCrossSite(request: FastifyRequest, reply: FastifyReply) {
        if (isCrossSitePost(request, web.publicOrigin)) return web.page(reply, 403, formRefusedPage(web.site));
        return undefined;
      },
      ...(options.signedIn
        ? [
            async function sendSignedOutToSignIn(request: FastifyRequest, reply: FastifyReply) {
              const who = await web.signedIn(request);
              if (!who) return web.redirect(request, reply, '/signin', { error: 'Your session has ended. Please sign in again.' });
              web.posters.set(request, who);
              return undefined;
            },
          ]
        : []),
      this.app.csrfProtection,
    ];
    this.app.route({
      method: 'POST',
      url,
      config: { kind: 'page' },
      preHandler,
      handler: async function submitForm(request, reply) {
        if (web.inMaintenance(reply)) return reply;
        const p = paramsOf(request);
        if (p.repeatedAmong(checked)) return web.errorPage(reply, 400, 'Bad request', 'The form was not understood. Go back and try again.');
        return handler(request, reply, p);
      },
    });
  }

  /** A form post that needs a signed-in person; without a session it goes to sign in. */
  postSignedIn(
    url: string,
    fields: readonly string[],
    handler: (request: FastifyRequest, reply: FastifyReply, p: Params, who: SignedIn) => Promise<FastifyReply>,
  ): void {
    this.post(
      url,
      fields,
      async (request, reply, p) => {
        const who = this.posters.get(request);
        if (!who) throw new Error('a post that needs a session reached its handler without one');
        return handler(request, reply, p, who);
      },
      { signedIn: true },
    );
  }
}

/**
 * A page's query parameters as text. A parameter sent twice arrives as an array: it counts as
 * absent, as a form post's repeated field is refused, so that no page handles anything but text.
 */
export function queryStrings(request: FastifyRequest): Record<string, string | undefined> {
  const q = request.query as Record<string, unknown>;
  return Object.fromEntries(Object.entries(q).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
}

/** A local path to return to after sign-in: only this server's own pages, never another site. */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !/^\/[A-Za-z0-9_\-/.]*$/.test(next) || next.startsWith('//') || next.includes('/..')) return '/';
  return next;
}

/** "3 minutes", "1 minute": how long to wait, from seconds. */
export function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
}

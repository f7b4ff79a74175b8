import type { FastifyRequest } from 'fastify';

/**
 * Whether the browser says this form post comes from another origin. Current browsers send
 * `Sec-Fetch-Site` (Chromium since 2019, Firefox since 2021, Safari since 2023) and all send
 * `Origin` on a POST. Such a post is refused even with a valid CSRF token: the double-submit token
 * is only as good as its cookie, and a sibling subdomain can plant cookies for its site (the
 * `__Host-` prefix stops that only over https). That is also why `same-site` is refused, as its
 * Origin would be. `none` is a navigation the user started.
 *
 * A post with neither header is let through to the CSRF token, on purpose (docs/decisions/0021):
 * curl and scripts post forms without them, and so do browsers older than those above, which
 * still get their answer. What makes that safe is the token's binding to the session (csrf.ts): a
 * forger without the headers must still send a token made for the victim's own session cookie,
 * which neither a planted CSRF cookie nor the forger's own pages can give. Every current browser
 * sends Origin on a cross-origin POST, so a forged post from one never arrives without it.
 */
export function isCrossSitePost(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  // `Origin: null` (a sandboxed frame, a redirect across origins) is not this origin either.
  const origin = request.headers.origin;
  return origin !== undefined && origin !== publicOrigin;
}

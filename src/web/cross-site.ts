import type { FastifyRequest } from 'fastify';

/**
 * Whether the browser says this form post comes from another site. Browsers send
 * `Sec-Fetch-Site` (since 2020–2023) and `Origin` on every POST; a post that another site's page
 * made is refused even if it carries a valid CSRF token (a second line after the token: a
 * cookie leaked by a sibling subdomain, a token read by a bug elsewhere). `same-site` is refused
 * too: it comes from another origin of the same site, which the Origin check refuses as well.
 * `none` is a navigation the user started. A request with neither header (older browsers, curl)
 * relies on the CSRF token alone, as before.
 */
export function isCrossSitePost(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  // `Origin: null` (a sandboxed frame, a redirect across origins) is not this origin either.
  const origin = request.headers.origin;
  return origin !== undefined && origin !== publicOrigin;
}

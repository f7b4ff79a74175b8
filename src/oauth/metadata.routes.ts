import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';
import { PATH as AUTHORIZE_PATH } from './authorize.routes.js';
import { REVOKE_PATH } from './revoke.routes.js';
import { KNOWN_SCOPES } from './scopes.js';

export const METADATA_PATH = '/.well-known/oauth-authorization-server';
const TOKEN_PATH = '/3/account/token.php';

/** How apps authenticate at the token and revocation endpoints: HTTP Basic or the form (client-auth.ts); every app has a secret. */
const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post'] as const;

/**
 * RFC 8414 authorization server metadata: what Tickler's OAuth server does, stated only as far as
 * it does it (docs/oauth.md). Every field the RFC gives a default for is written out where the
 * default would claim more: grant types (the default adds `implicit`), response modes (the
 * default adds `fragment`). Scopes are the words that grant something; others are accepted and
 * echoed but grant nothing (scopes.ts), so they are not "supported".
 */
export function authorizationServerMetadata(publicUrl: string): Record<string, unknown> {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${AUTHORIZE_PATH}`,
    token_endpoint: `${publicUrl}${TOKEN_PATH}`,
    revocation_endpoint: `${publicUrl}${REVOKE_PATH}`,
    scopes_supported: [...KNOWN_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH],
    // PKCE is optional (the v3 API has none); when used, only S256: `plain` protects nothing.
    code_challenge_methods_supported: ['S256'],
  };
}

/**
 * Serves the metadata at the RFC 8414 location. With a path in PUBLIC_URL (behind a proxy at
 * https://host/prefix), section 3.1 puts it at /.well-known/oauth-authorization-server/prefix
 * on the host: served there too, for a proxy that passes that path on as it is.
 */
export function metadataRoutes(app: FastifyInstance, deps: Deps): void {
  const body = JSON.stringify(authorizationServerMetadata(deps.config.publicUrl));
  const prefix = new URL(deps.config.publicUrl).pathname.replace(/\/+$/, '');
  const paths = prefix === '' ? [METADATA_PATH] : [METADATA_PATH, `${METADATA_PATH}${prefix}`];
  for (const url of paths) {
    app.get(url, { config: { kind: 'api' } }, function serverMetadata(_request, reply) {
      // Public and the same for everyone until the server restarts with other settings; a browser
      // app may read it from anywhere (no credentials are involved).
      return reply
        .header('cache-control', 'public, max-age=3600')
        .header('access-control-allow-origin', '*')
        .type('application/json; charset=utf-8')
        .send(body);
    });
  }
}

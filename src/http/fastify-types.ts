import type { ErrorCode } from '../errors.js';
import type { AuthContext } from '../oauth/access-tokens.js';

/** What a route declares about itself; the shared hooks and the error handler read it. */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** api: a v3 call with an access token; token: the token endpoint; page: an HTML page. */
    kind?: 'api' | 'token' | 'page';
    /** The code for a body that cannot be parsed (611 for tasks, 102 for tokens; 0 otherwise). */
    malformedCode?: ErrorCode;
  }
  interface FastifyRequest {
    /** Set by the API guard on api routes once the access token is checked. */
    auth: AuthContext | null;
    /** Parameters from query and body, built on first use (src/http/params.ts). */
    params_: import('./params.js').Params | null;
    /**
     * An answer decided before the body was read, given once it has been (so that it honours `f`
     * from the body) or instead of a body error (src/http/error-handler.ts).
     */
    refusal: import('../errors.js').ApiError | null;
  }
}

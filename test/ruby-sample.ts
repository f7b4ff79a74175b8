/**
 * The token requests of the hosted service's own Ruby OAuth sample (the oauth2 gem 1.4), as it
 * sends them: its client is configured with the authorize address as its `site`, and its HTTP
 * library copies that address's query onto the token request, sorted by name; the gem puts the
 * client's credentials in the body. So `client_id` arrives in the query and in the body, with the
 * same value, and the authorize request's `response_type`, `scope` and `state` come along.
 * Used through app.inject (src/oauth/token.routes.test.ts) and against `bin/tickler serve`
 * (test/e2e/serve.e2e.test.ts).
 */
export const RUBY_SAMPLE_SCOPE = 'basic tasks';

export interface RubySampleRequest {
  /** Path and query, from `/3/account/token.php`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function rubySampleTokenRequest(
  clientId: string,
  clientSecret: string,
  grant: { readonly code: string } | { readonly refreshToken: string },
): RubySampleRequest {
  const id = encodeURIComponent(clientId);
  const secret = encodeURIComponent(clientSecret);
  const body =
    'code' in grant
      ? `client_id=${id}&client_secret=${secret}&code=${encodeURIComponent(grant.code)}&grant_type=authorization_code`
      : `client_id=${id}&client_secret=${secret}&grant_type=refresh_token&refresh_token=${encodeURIComponent(grant.refreshToken)}`;
  return {
    url: `/3/account/token.php?client_id=${id}&response_type=code&scope=basic%20tasks&state=xyz`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: '*/*' },
    body,
  };
}

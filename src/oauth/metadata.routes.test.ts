import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HTTPMethods } from 'fastify';
import { createApp, testContext, tokenRequest, type TestContext } from '../../test/harness.js';
import { withContext } from '../../test/with-context.js';

/** RFC 8414 metadata at /.well-known/oauth-authorization-server, and that it states only what the server does. */
describe('authorization server metadata (RFC 8414)', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await testContext({ PUBLIC_URL: 'https://todo.example.org' });
  });
  after(() => ctx.close());

  const metadata = async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    return res.json<Record<string, unknown>>();
  };

  it('names PUBLIC_URL as the issuer, the endpoints under it, and what each supports', async () => {
    assert.deepEqual(await metadata(), {
      issuer: 'https://todo.example.org',
      authorization_endpoint: 'https://todo.example.org/3/account/authorize.php',
      token_endpoint: 'https://todo.example.org/3/account/token.php',
      revocation_endpoint: 'https://todo.example.org/3/account/revoke.php',
      scopes_supported: ['basic', 'tasks', 'notes', 'outlines', 'lists', 'share', 'write'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('names endpoints this server has', async () => {
    const m = await metadata();
    const routes: Array<[string, HTTPMethods[]]> = [
      ['authorization_endpoint', ['GET', 'POST']],
      ['token_endpoint', ['POST']],
      ['revocation_endpoint', ['POST']],
    ];
    for (const [field, methods] of routes) {
      const path = new URL(m[field] as string).pathname;
      for (const method of methods) assert.ok(ctx.app.hasRoute({ method, url: path }), `${method} ${path}`);
    }
  });

  it('lists the grant types the token endpoint takes, and no other', async () => {
    const app = await createApp(ctx);
    const grants = (await metadata())['grant_types_supported'] as string[];
    const desc = async (grantType: string) => (await tokenRequest(ctx, app, { grant_type: grantType })).json<{ errorDesc: string }>().errorDesc;
    for (const grant of grants) assert.doesNotMatch(await desc(grant), /unsupported grant_type/, grant);
    for (const other of ['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code']) assert.match(await desc(other), /unsupported grant_type/, other);
  });

  it('each client authentication method listed is accepted at the revocation endpoint', async () => {
    const app = await createApp(ctx);
    const basic = await ctx.app.inject({ method: 'POST', url: '/3/account/revoke.php', headers: { authorization: app.basic }, payload: { token: 'unknown' } });
    const post = await ctx.app.inject({ method: 'POST', url: '/3/account/revoke.php', payload: { token: 'unknown', client_id: app.clientId, client_secret: app.clientSecret } });
    assert.deepEqual([basic.statusCode, post.statusCode], [200, 200]);
  });

  it('is public and may be cached; anything but GET (or HEAD) finds nothing', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal((await ctx.app.inject({ method: 'HEAD', url: '/.well-known/oauth-authorization-server' })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/.well-known/oauth-authorization-server' })).statusCode, 404);
  });

  it('with a path in PUBLIC_URL: the issuer and endpoints carry it, and the RFC 8414 section 3.1 location serves it too', async () => {
    await withContext({ PUBLIC_URL: 'https://example.org/tickler/' }, async (prefixed) => {
      for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/tickler']) {
        const m = (await prefixed.app.inject({ method: 'GET', url })).json<Record<string, unknown>>();
        assert.equal(m['issuer'], 'https://example.org/tickler', url);
        assert.equal(m['token_endpoint'], 'https://example.org/tickler/3/account/token.php', url);
      }
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorize, createAccount, createApp, testContext, type TestContext } from '../../test/harness.js';
import { BOUNDARY, CLOSING, CONTENT_TYPE, part } from '../../test/multipart-body.js';

describe('multipart/form-data bodies', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext({ MAX_BODY_BYTES: String(4 * 1024 * 1024) });
    token = (await authorize(ctx, await createAccount(ctx), await createApp(ctx), 'basic')).access_token;
  });
  after(() => ctx.close());

  const post = (payload: string, contentType = CONTENT_TYPE) =>
    ctx.app.inject({ method: 'POST', url: '/3/account/get.php', headers: { 'content-type': contentType }, payload });

  it('reads fields, UTF-8 included, and file parts as text', async () => {
    const res = await post(`${part('access_token', token, 'token.txt')}${part('f', 'xml')}${part('note', 'émoji 😀')}${CLOSING}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /<account>/);
  });

  it('a field sent twice is read as its last value, as in url-encoded forms', async () => {
    const res = await post(`${part('access_token', token)}${part('f', 'json')}${part('f', 'xml')}${CLOSING}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /<account>/);
  });

  it('answers 413 when the body is over MAX_BODY_BYTES, whether or not it says its length', async () => {
    const big = `${part('access_token', token)}${part('pad', 'x'.repeat(4 * 1024 * 1024))}${CLOSING}`;
    const res = await post(big);
    assert.equal(res.statusCode, 413);
    assert.equal((res.json() as { errorCode: number }).errorCode, 0);
  });

  it('a multipart body without a boundary is malformed (code 0, HTTP 400)', async () => {
    const res = await post(part('access_token', token), 'multipart/form-data');
    assert.equal(res.statusCode, 400);
    assert.match((res.json() as { errorDesc: string }).errorDesc, /^Malformed request/);
  });

  it('too many parts is malformed', async () => {
    let body = '';
    for (let i = 0; i < 1100; i++) body += part(`p${i}`, 'x');
    const res = await post(`${body}${CLOSING}`);
    assert.equal(res.statusCode, 400);
    assert.match((res.json() as { errorDesc: string }).errorDesc, /too many parts/);
  });

  it('a file part cut short is malformed, on any route, and the process goes on (it used to exit)', async () => {
    const cut = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="tasks"; filename="x"\r\n\r\nAAAA`;
    for (const url of ['/3/account/get.php', '/3/account/token.php', '/3/tasks/add.php', '/3/account/authorize.php']) {
      const res = await ctx.app.inject({ method: 'POST', url, headers: { 'content-type': CONTENT_TYPE }, payload: cut });
      assert.ok([200, 400, 403].includes(res.statusCode), `${url}: ${res.statusCode} ${res.body}`);
      assert.match(res.body, /[Mm]alformed|expired/, url);
    }
    // Still serving: the error was answered, not thrown.
    assert.equal((await post(`${part('access_token', token)}${CLOSING}`)).statusCode, 200);
  });

  it('a part that is not form-data is skipped, however large (a skipped part over 16 KiB used to hang the request)', { timeout: 10_000 }, async () => {
    for (const size of [1_000, 70_000, 1_000_000]) {
      const skipped = `--${BOUNDARY}\r\nContent-Disposition: attachment; name="x"\r\n\r\n${'x'.repeat(size)}\r\n`;
      const res = await post(`${skipped}${part('access_token', token)}${CLOSING}`);
      assert.equal(res.statusCode, 200, `${size}: ${res.body}`);
    }
  });

  it('a truncated body is malformed, not a hang or a crash', async () => {
    const res = await post(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="access_token"\r\n\r\n${token}`);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { errorCode: 0, errorDesc: 'Malformed request: the multipart body is malformed' });
  });
});

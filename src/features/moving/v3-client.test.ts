import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { V3Client, V3Error } from './v3-client.js';

/**
 * The client's manners with a source that limits it, told deterministically by a stand-in server
 * (the end-to-end import test meets a real limit only when the machine is fast enough to hit it).
 */
type Answer = { status: number; body: string; headers?: Record<string, string> };

describe('V3Client: limits, maintenance and expired tokens', () => {
  let server: Server;
  let base: string;
  let script: Answer[] = [];
  const seen: string[] = [];

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.url} ${req.headers.authorization?.split(' ')[0]} ${body}`);
        if (req.url === '/3/account/token.php') {
          const n = seen.filter((s) => s.startsWith('/3/account/token.php')).length;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `access${n}`, refresh_token: `refresh${n}` }));
          return;
        }
        const next = script.shift() ?? { status: 200, body: '{"ok":true}' };
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  function client(): { c: V3Client; slept: number[]; waits: string[] } {
    const slept: number[] = [];
    const waits: string[] = [];
    const c = new V3Client({
      base,
      clientId: 'app',
      clientSecret: 'secret',
      tokens: { access: 'access0', refresh: 'refresh0' },
      sleep: async (ms) => void slept.push(ms),
      onWait: (s, why) => void waits.push(`${why}: ${s}`),
    });
    return { c, slept, waits };
  }

  it('error 3 with HTTP 429: refreshes its token, waits what Retry-After says, tries again', async () => {
    seen.length = 0;
    script = [{ status: 429, body: '{"errorCode":3,"errorDesc":"Too many API requests"}', headers: { 'retry-after': '7' } }];
    const { c, slept, waits } = client();
    assert.deepEqual(await c.json('/3/account/get.php'), { ok: true });
    assert.deepEqual(slept, [7000]);
    assert.deepEqual(waits, ['the source asks to slow down: 7']);
    assert.deepEqual(
      seen.map((s) => s.split(' ').slice(0, 2).join(' ')),
      ['/3/account/get.php Bearer', '/3/account/token.php Basic', '/3/account/get.php Bearer'],
      'one refresh between the two tries',
    );
    assert.equal(c.requests, 3);
  });

  it('error 3 without Retry-After: waits longer each time, and gives up after its tries', async () => {
    script = Array.from({ length: 8 }, () => ({ status: 200, body: '{"errorCode":3,"errorDesc":"Too many API requests"}' }));
    const { c, slept } = client();
    await assert.rejects(c.json('/3/tasks/get.php'), (err: unknown) => err instanceof V3Error && err.code === 3);
    assert.deepEqual(slept, [10, 20, 40, 80, 160, 300, 300].map((s) => s * 1000));
  });

  it('a wait longer than allowed stops the run instead of hanging', async () => {
    script = [{ status: 429, body: '{"errorCode":3,"errorDesc":"Too many API requests"}', headers: { 'retry-after': '7200' } }];
    const { c } = client();
    await assert.rejects(c.json('/3/account/get.php'), /asks to wait 7200 s, longer than 3600 s/);
  });

  it('maintenance (error 4, 503): waits and tries again without refreshing', async () => {
    seen.length = 0;
    script = [{ status: 503, body: '{"errorCode":4,"errorDesc":"maintenance"}', headers: { 'retry-after': '2' } }];
    const { c, slept } = client();
    assert.deepEqual(await c.json('/3/account/get.php'), { ok: true });
    assert.deepEqual(slept, [2000]);
    assert.equal(seen.filter((s) => s.startsWith('/3/account/token.php')).length, 0);
  });

  it('an expired token (error 2) is refreshed once, then the error is final', async () => {
    seen.length = 0;
    script = [{ status: 401, body: '{"errorCode":2,"errorDesc":"Unauthorized"}' }];
    const { c } = client();
    assert.deepEqual(await c.json('/3/account/get.php'), { ok: true });
    assert.match(seen[2] ?? '', /^\/3\/account\/get.php Bearer/);

    script = [401, 401].map(() => ({ status: 401, body: '{"errorCode":2,"errorDesc":"Unauthorized"}' }));
    await assert.rejects(client().c.json('/3/account/get.php'), (err: unknown) => err instanceof V3Error && err.code === 2);
  });
});

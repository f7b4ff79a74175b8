import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { postTo } from './send.js';

describe('posting a webhook', () => {
  const seen: Array<{ host: string | undefined; path: string | undefined; body: string; headers: IncomingMessage['headers'] }> = [];
  let answer: (res: ServerResponse) => void = (res) => res.end('ok');
  let port: number;
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ host: req.headers.host, path: req.url, body, headers: req.headers });
    answer(res);
  });
  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('connects to the address it was checked at, naming the host as written', async () => {
    // hooks.invalid resolves nowhere: only the pinned address can reach the server.
    const url = new URL(`http://hooks.invalid:${port}/in?x=1`);
    const r = await postTo({ url, address: '127.0.0.1', family: 4 }, { 'webhook-id': 'msg_1' }, '{"type":"test"}');
    assert.equal(r.status, 200);
    assert.equal(r.error, null);
    const last = seen.at(-1);
    assert.deepEqual([last?.host, last?.path, last?.body], [`hooks.invalid:${port}`, '/in?x=1', '{"type":"test"}']);
    assert.equal(last?.headers['content-type'], 'application/json');
    assert.equal(last?.headers['webhook-id'], 'msg_1');
  });

  it('reports the status of any answer, no answer in time, and a refused connection', async () => {
    answer = (res) => res.writeHead(500).end('down');
    const target = { url: new URL(`http://127.0.0.1:${port}/`), address: '127.0.0.1', family: 4 as const };
    assert.equal((await postTo(target, {}, '{}')).status, 500);
    answer = (res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    assert.equal((await postTo(target, {}, '{}')).status, 302, 'a redirect is an answer, not followed');
    answer = () => undefined;
    const silent = await postTo(target, {}, '{}', 200);
    assert.deepEqual([silent.status, silent.error], [null, 'no answer within 0.2 s']);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    const refused = await postTo({ url: new URL(`http://127.0.0.1:${closedPort}/`), address: '127.0.0.1', family: 4 }, {}, '{}');
    assert.deepEqual([refused.status, refused.error], [null, 'connection refused']);
    answer = (res) => res.end('ok');
  });
});

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { testContext, type TestContext } from '../../test/harness.js';
import { siteOf } from '../web/html.js';
import { clientErrorAnswer } from './client-errors.js';

/** Over the 1 MiB of `maxHeaderSize` (src/app.ts). */
const BIG = 'a'.repeat(1024 * 1024 + 1);

/** Sends `bytes` on a fresh connection and reads until the server closes it. */
async function exchange(port: number, bytes: string): Promise<{ text: string; closedByServer: boolean }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  let closedByServer = false;
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('end', () => (closedByServer = true));
  socket.on('error', () => undefined);
  socket.write(bytes);
  await once(socket, 'close');
  return { text, closedByServer };
}

function parse(text: string): { status: number; headers: Map<string, string>; body: string } {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

describe('requests the HTTP parser refuses', () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await testContext();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as { port: number }).port;
  });
  after(() => ctx.close());

  it('a head too large: 431 with Connection: close and the v3 error record, then the connection ends', async () => {
    const { text, closedByServer } = await exchange(port, `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nX-Big: ${BIG}\r\n\r\n`);
    const res = parse(text);
    assert.equal(res.status, 431);
    assert.equal(res.headers.get('connection'), 'close');
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.body));
    assert.deepEqual(JSON.parse(res.body), { errorCode: 0, errorDesc: 'The request head (its address and headers) is too large' });
    assert.ok(closedByServer, 'the server ended the connection after its answer');
  });

  it('a keep-alive client sees Connection: close and sends its next request on a new connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const refused = await get('/3/account/get.php', { 'x-big': BIG });
      assert.equal(refused.status, 431);
      assert.equal(refused.connection, 'close');
      const next = await get('/healthz');
      assert.equal(next.status, 200, 'the next request is answered, not cut with ECONNRESET');
    } finally {
      agent.destroy();
    }
  });

  it('bytes that are not HTTP: 400 with Connection: close and the v3 error record', async () => {
    const res = parse((await exchange(port, 'NOT HTTP AT ALL\r\n\r\n')).text);
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('connection'), 'close');
    assert.equal((JSON.parse(res.body) as { errorCode: number }).errorCode, 0);
  });

  it('the answer follows the request line when the failing bytes begin with it: XML for f=xml, a page for a page', () => {
    const site = siteOf('http://127.0.0.1:3000');
    const err = (line: string) => Object.assign(new Error('Header overflow'), { code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from(`${line}\r\nHost: x\r\n`) });
    const xml = parse(clientErrorAnswer(err('GET /3/tasks/get.php?f=xml HTTP/1.1'), site).toString('utf8'));
    assert.equal(xml.headers.get('content-type'), 'text/xml; charset=utf-8');
    assert.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><error id="0">The request head (its address and headers) is too large</error>');
    const page = parse(clientErrorAnswer(err('GET /account HTTP/1.1'), site).toString('utf8'));
    assert.equal(page.status, 431);
    assert.equal(page.headers.get('connection'), 'close');
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(page.body, /too large/);
    // Bytes from the middle of a head name no path: the API's record.
    const unknown = parse(clientErrorAnswer(Object.assign(new Error('x'), { code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from('aaaa') }), site).toString('utf8'));
    assert.equal(unknown.headers.get('content-type'), 'application/json; charset=utf-8');
  });
});

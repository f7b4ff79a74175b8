import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { defaultDatabase } from '../database.js';
import { testContext } from '../harness.js';
import { looseUtf8, percentEncode } from './bytes.js';
import { fuzzInProcess } from './engine.js';
import { judge } from './oracle.js';
import { registeredRoutes } from './routes.js';

describe('fuzzer: its parts', () => {
  it('lists every route of a nested router, parameters and wildcards included', async () => {
    const app = Fastify();
    const h = async () => 'x';
    app.get('/a', h);
    app.post('/a/b', h);
    app.get('/ab', h);
    app.put('/a/:id/x', h);
    app.get('/zz/*', h);
    await app.ready();
    const listed = registeredRoutes(app).map((r) => `${r.method} ${r.url}`).sort();
    assert.deepEqual(listed, ['GET /a', 'GET /ab', 'GET /zz/*', 'HEAD /a', 'HEAD /ab', 'HEAD /zz/*', 'POST /a/b', 'PUT /a/:id/x']);
    await app.close();
  });

  it('lists the routes of the production app, the pages and the probes among them', async () => {
    const ctx = await testContext();
    try {
      const routes = registeredRoutes(ctx.app).map((r) => `${r.method} ${r.url}`);
      for (const r of ['GET /3/account/authorize.php', 'POST /3/account/authorize.php', 'POST /3/account/token.php', 'GET /healthz', 'GET /readyz', 'POST /3/tasks/add.php', 'DELETE /3/goals/edit.php']) {
        assert.ok(routes.includes(r), r);
      }
    } finally {
      await ctx.close();
    }
  });

  it('judges answers: a 5xx, a stack trace, a path, a database message or a broken body is wrong', () => {
    const ok = { method: 'GET', status: 200, contentType: 'application/json; charset=utf-8', body: '{"errorCode":611,"errorDesc":"Malformed request"}' };
    assert.equal(judge(ok), undefined);
    assert.equal(judge({ ...ok, contentType: 'text/xml; charset=utf-8', body: '<?xml version="1.0" encoding="UTF-8"?><a>&amp;</a>' }), undefined);
    assert.match(judge({ ...ok, status: 500 }) ?? '', /HTTP 500/);
    assert.match(judge({ ...ok, body: '{"m":"TypeError: x\\n    at foo (/app/x.js:1:2)"}' }) ?? '', /stack frame|exception/);
    assert.match(judge({ ...ok, body: '{"m":"SQLITE_CONSTRAINT"}' }) ?? '', /database/);
    assert.match(judge({ ...ok, body: '{"errorDesc":"Error: connection terminated"}' }) ?? '', /exception's message/);
    assert.match(judge({ ...ok, body: '{"m":"see /srv/dist/app.js"}' }) ?? '', /file path/);
    assert.match(judge({ ...ok, body: '{"a":' }) ?? '', /does not parse/);
    assert.match(judge({ ...ok, contentType: 'text/xml', body: '<a><b></a>' }) ?? '', /not well-formed/);
    assert.equal(judge({ ...ok, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }), undefined);
    assert.match(judge({ ...ok, contentType: 'image/svg+xml', body: '<svg>' }) ?? '', /not well-formed/);
    assert.equal(judge({ ...ok, contentType: 'image/png', body: '\x89PNG' }), undefined);
    assert.equal(judge({ ...ok, contentType: 'text/javascript; charset=utf-8', body: 'export {};' }), undefined);
    assert.equal(judge({ ...ok, contentType: 'text/event-stream; charset=utf-8', body: ': open\nretry: 3000\n\n' }), undefined);
    assert.match(judge({ ...ok, contentType: 'text/event-stream', body: '{"a":1}' }) ?? '', /event lines/);
    assert.match(judge({ ...ok, contentType: 'application/octet-stream', body: 'x' }) ?? '', /unexpected type/);
    assert.equal(judge({ ...ok, status: 404, contentType: 'text/plain; charset=utf-8', body: 'Not found\n' }), undefined, 'the short answers of CalDAV and the calendar feeds');
    assert.match(judge({ ...ok, contentType: 'text/plain; charset=utf-8', body: 'SQLITE_CONSTRAINT' }) ?? '', /database/);
  });

  it('writes lone surrogates as the invalid bytes a sloppy client sends', () => {
    assert.deepEqual([...looseUtf8('a\uD800b')], [0x61, 0xed, 0xa0, 0x80, 0x62]);
    assert.deepEqual([...looseUtf8('😀')], [0xf0, 0x9f, 0x98, 0x80]);
    assert.equal(percentEncode('\uDFFF x'), '%ED%BF%BF%20x');
  });
});

describe('fuzzer: a fixed-seed slice over every route', () => {
  it('answers every request without a 5xx, a leak, a hang or an escaped error', { timeout: 120_000 }, async () => {
    const figures = await fuzzInProcess({ database: defaultDatabase(), seed: 20_260_515, requests: 900, seconds: 60, perRoute: 2 });
    assert.equal(figures.failure, undefined, figures.failure);
    assert.equal(figures.serverErrors, 0);
    assert.equal(figures.exits, 0);
    assert.equal(figures.routesHit, figures.routes, 'every route was fuzzed');
    assert.ok(figures.requests >= 900, `${figures.requests} requests`);
  });
});

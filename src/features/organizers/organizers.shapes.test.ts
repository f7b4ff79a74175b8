import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { testContext } from '../../../test/harness.js';
import type { OrganizerKind } from '../../storage/store.js';
import { call, KIND_NAMES, newUser, PLURAL, setup, type User } from './organizers.test-kit.js';

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';

/** For each kind: what to add, and the exact bodies expected (numbers as JSON numbers, keys in order). */
interface Shape {
  readonly kind: OrganizerKind;
  readonly form: Record<string, string>;
  readonly added: string;
  readonly listed: string;
  readonly xml: string;
}

const SHAPES: readonly Shape[] = [
  {
    kind: 'folder',
    form: { name: 'Inbox', private: '1', archived: '1' },
    // archived is not an add parameter: a new folder is never archived.
    added: '[{"id":1,"name":"Inbox","private":1,"archived":0,"ord":1}]',
    listed: '[{"id":1,"name":"Inbox","private":1,"archived":0,"ord":1}]',
    xml: '<folders><folder><id>1</id><name>Inbox</name><private>1</private><archived>0</archived><order>1</order></folder></folders>',
  },
  {
    kind: 'context',
    form: { name: '@Home', private: '1' },
    added: '[{"id":1,"name":"@Home","private":1}]',
    listed: '[{"id":1,"name":"@Home","private":1}]',
    xml: '<contexts><context><id>1</id><name>@Home</name><private>1</private></context></contexts>',
  },
  {
    kind: 'goal',
    form: { name: 'Run a marathon', level: '1', private: '1', note: 'line 1\nline 2 & <more>', archived: '1' },
    // Spec 2.2: the JSON list of get has no `private`; add/edit and XML do. archived is edit-only.
    added: '[{"id":1,"name":"Run a marathon","level":1,"archived":0,"contributes":0,"private":1,"note":"line 1\\nline 2 & <more>"}]',
    listed: '[{"id":1,"name":"Run a marathon","level":1,"archived":0,"contributes":0,"note":"line 1\\nline 2 & <more>"}]',
    xml:
      '<goals><goal><id>1</id><name>Run a marathon</name><level>1</level><archived>0</archived><contributes>0</contributes>' +
      '<private>1</private><note>line 1\nline 2 &amp; &lt;more&gt;</note></goal></goals>',
  },
  {
    kind: 'location',
    form: { name: 'Office', description: 'Third floor', lat: '51.5074', lon: '-0.1278' },
    added: '[{"id":1,"name":"Office","description":"Third floor","lat":51.5074,"lon":-0.1278}]',
    listed: '[{"id":1,"name":"Office","description":"Third floor","lat":51.5074,"lon":-0.1278}]',
    xml: '<locations><location><id>1</id><name>Office</name><description>Third floor</description><lat>51.5074</lat><lon>-0.1278</lon></location></locations>',
  },
];

describe('response shapes', () => {
  const env = setup(() => testContext(), false);

  for (const s of SHAPES) {
    describe(s.kind, () => {
      let user: User;
      before(async () => {
        user = await newUser(env.ctx);
      });

      it('get of an empty account: [] and an empty root element', async () => {
        const res = await call(env.ctx, user, s.kind, 'get');
        assert.equal(res.statusCode, 200);
        assert.match(res.headers['content-type'] as string, /^application\/json/);
        assert.equal(res.body, '[]');
        const xml = await call(env.ctx, user, s.kind, 'get', { f: 'xml' });
        assert.equal(xml.body, `${XML_HEAD}<${PLURAL[s.kind]}></${PLURAL[s.kind]}>`);
      });

      it('add answers a one-element array with exactly the documented keys', async () => {
        const res = await call(env.ctx, user, s.kind, 'add', s.form);
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, s.added);
      });

      it('get lists it with the documented JSON keys', async () => {
        assert.equal((await call(env.ctx, user, s.kind, 'get')).body, s.listed);
      });

      it('get in XML: compact, root and element named after the kind, every field', async () => {
        const res = await call(env.ctx, user, s.kind, 'get', { f: 'xml' });
        assert.match(res.headers['content-type'] as string, /^text\/xml/);
        assert.equal(res.body, XML_HEAD + s.xml);
      });

      it('edit answers a one-element array, in XML too', async () => {
        const json = await call(env.ctx, user, s.kind, 'edit', { id: '1', name: 'Renamed' });
        assert.equal(json.body, s.added.replace(/"name":"[^"]*"/, '"name":"Renamed"'));
        const xml = await call(env.ctx, user, s.kind, 'edit', { id: '1', name: 'Renamed again', f: 'xml' });
        assert.equal(xml.body, XML_HEAD + s.xml.replace(/<name>[^<]*<\/name>/, '<name>Renamed again</name>'));
      });

      it('delete answers {"deleted": id} with a number, and <deleted>id</deleted>', async () => {
        assert.equal((await call(env.ctx, user, s.kind, 'delete', { id: '1' })).body, '{"deleted":1}');
        await call(env.ctx, user, s.kind, 'add', { name: 'Second' });
        const xml = await call(env.ctx, user, s.kind, 'delete', { id: '2', f: 'xml' });
        assert.equal(xml.body, `${XML_HEAD}<deleted>2</deleted>`);
      });
    });
  }

  it('lists several records in XML as sibling elements a parser reads back', async () => {
    const user = await newUser(env.ctx);
    for (const kind of KIND_NAMES) {
      for (const name of ['A', 'B', 'C']) await call(env.ctx, user, kind, 'add', { name });
      const res = await call(env.ctx, user, kind, 'get', { f: 'xml' });
      assert.doesNotMatch(res.body, />\s+</);
      const parsed = new XMLParser({ parseTagValue: false }).parse(res.body) as Record<string, Record<string, Array<{ name: string }>>>;
      assert.deepEqual(parsed[PLURAL[kind]]?.[kind]?.map((r) => r.name), ['A', 'B', 'C'], kind);
    }
  });

  it('folders get ord after the last one and are listed by ord', async () => {
    const user = await newUser(env.ctx);
    for (const name of ['One', 'Two', 'Three']) await call(env.ctx, user, 'folder', 'add', { name });
    await call(env.ctx, user, 'folder', 'delete', { id: '3' });
    await call(env.ctx, user, 'folder', 'add', { name: 'Four' });
    const listed = (await call(env.ctx, user, 'folder', 'get')).json() as Array<{ id: number; ord: number }>;
    assert.deepEqual(listed.map((f) => [f.id, f.ord]), [[1, 1], [2, 2], [4, 3]]);
  });

  it('a location without coordinates shows 0 for both, as numbers', async () => {
    const user = await newUser(env.ctx);
    const res = await call(env.ctx, user, 'location', 'add', { name: 'Somewhere' });
    assert.equal(res.body, '[{"id":1,"name":"Somewhere","description":"","lat":0,"lon":0}]');
  });

  it('stores text without U+0000 (PostgreSQL cannot hold it; SQLite must hold the same)', async () => {
    const user = await newUser(env.ctx);
    await call(env.ctx, user, 'goal', 'add', { name: 'Run\u0000 far', note: 'a\u0000b' });
    await call(env.ctx, user, 'location', 'add', { name: 'Po\u0000rt', description: 'qu\u0000ay' });
    assert.equal((await call(env.ctx, user, 'goal', 'get')).body, '[{"id":1,"name":"Run far","level":0,"archived":0,"contributes":0,"note":"ab"}]');
    assert.equal((await call(env.ctx, user, 'location', 'get')).body, '[{"id":1,"name":"Port","description":"quay","lat":0,"lon":0}]');
  });

  it('accepts the parameters as a JSON body and in the query string too', async () => {
    const user = await newUser(env.ctx);
    const res = await env.ctx.app.inject({
      method: 'POST',
      url: '/3/goals/add.php',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'From JSON', level: 2, private: true }),
    });
    assert.equal(res.body, '[{"id":1,"name":"From JSON","level":2,"archived":0,"contributes":0,"private":1,"note":""}]');
    const get = await env.ctx.app.inject({ method: 'GET', url: `/3/contexts/add.php?access_token=${user.token}&name=Query+string&private=1.0` });
    assert.equal(get.body, '[{"id":1,"name":"Query string","private":1}]');
  });
});

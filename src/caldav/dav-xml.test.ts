import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CALDAV, child, clarkOf, DAV, DavXmlError, parseDav, writeElement } from './dav-xml.js';

describe('WebDAV XML', () => {
  it('resolves namespaces whatever the prefixes, default ones included', () => {
    const a = parseDav('<?xml version="1.0"?><A:propfind xmlns:A="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><A:prop><C:calendar-home-set/><A:getetag/></A:prop></A:propfind>');
    const b = parseDav('<propfind xmlns="DAV:"><prop><calendar-home-set xmlns="urn:ietf:params:xml:ns:caldav"/><getetag/></prop></propfind>');
    for (const root of [a, b]) {
      assert.equal(clarkOf(root), '{DAV:}propfind');
      assert.deepEqual(child(root, DAV, 'prop')?.children.map(clarkOf), [`{${CALDAV}}calendar-home-set`, '{DAV:}getetag']);
    }
  });

  it('keeps text and attributes, and writes an element back with its namespace', () => {
    const e = parseDav('<x:calendar-color xmlns:x="http://apple.com/ns/ical/" symbolic-color="red">#FF0000FF</x:calendar-color>');
    assert.equal(e.text, '#FF0000FF');
    assert.deepEqual(e.attrs, { 'symbolic-color': 'red' });
    assert.equal(writeElement(e), '<calendar-color xmlns="http://apple.com/ns/ical/" symbolic-color="red">#FF0000FF</calendar-color>');
    assert.deepEqual(parseDav(writeElement(e)), e);
    assert.equal(parseDav('<a xmlns="urn:x">1 &amp; 2 &lt; 3</a>').text, '1 & 2 < 3');
  });

  it('writes a dead property\'s prefixed attributes with their namespaces declared, and refuses undeclared attribute prefixes', () => {
    const e = parseDav('<x:color xmlns:x="urn:x" xmlns:z="urn:z" z:q="1" x:r="2"><z:inner z:s="3">t</z:inner></x:color>');
    const written = writeElement(e);
    assert.deepEqual(parseDav(written), e, written);
    assert.match(written, /xmlns:z="urn:z"/);
    assert.throws(() => parseDav('<a xmlns="urn:x" z:q="1"/>'), DavXmlError);
    assert.equal(writeElement(parseDav('<a xmlns="urn:x" xml:lang="en"/>')), '<a xmlns="urn:x" xml:lang="en"/>', 'xml: is declared by XML itself');
  });

  it('reads character references, numeric ones included, and keeps CDATA as it stands; refuses unknown entities and references to no character', () => {
    const e = parseDav('<a xmlns="urn:x" t="&#233;&#x2615; &lt;&quot;">Caf&#233; &amp;#233; &#x1F600;<![CDATA[&lt;kept&gt; &foo;]]>&apos;</a>');
    assert.equal(e.text, 'Café &#233; 😀&lt;kept&gt; &foo;\'');
    assert.equal(e.attrs['t'], 'é☕ <"');
    for (const bad of ['<a xmlns="urn:x">&eacute;</a>', '<a xmlns="urn:x" t="&nbsp;"/>', '<a xmlns="urn:x">&#0;</a>', '<a xmlns="urn:x">&#xD800;</a>', '<a xmlns="urn:x">&#x7;</a>', '<a xmlns="urn:x">&#x110000;</a>']) {
      assert.throws(() => parseDav(bad), DavXmlError, bad);
    }
  });

  it('reads elements nested 100 deep, and refuses deeper ones', () => {
    const nested = (depth: number): string => `${'<a xmlns="urn:x">'.repeat(depth)}${'</a>'.repeat(depth)}`;
    assert.equal(parseDav(nested(100)).name, 'a');
    assert.throws(() => parseDav(nested(101)), DavXmlError);
  });

  it('refuses what is not one XML document, undeclared prefixes, and document types (no entity is expanded)', () => {
    for (const bad of ['', 'not xml', '<a></b>', '<a/><b/>', '<x:a/>', '<!DOCTYPE a [<!ENTITY e "x">]><a xmlns="DAV:">&e;</a>']) {
      assert.throws(() => parseDav(bad), DavXmlError, JSON.stringify(bad));
    }
  });
});

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

  it('refuses what is not one XML document, undeclared prefixes, and document types (no entity is expanded)', () => {
    for (const bad of ['', 'not xml', '<a></b>', '<a/><b/>', '<x:a/>', '<!DOCTYPE a [<!ENTITY e "x">]><a xmlns="DAV:">&e;</a>']) {
      assert.throws(() => parseDav(bad), DavXmlError, JSON.stringify(bad));
    }
  });
});

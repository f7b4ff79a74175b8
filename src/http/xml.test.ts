import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { escapeAttr, escapeText, renderXml, type XmlValue } from './xml.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>';

describe('escapeText', () => {
  const cases: Array<[string, XmlValue, string]> = [
    ['plain text', 'Buy milk', 'Buy milk'],
    ['markup characters', 'a & b < c > d', 'a &amp; b &lt; c &gt; d'],
    // An already escaped string is escaped again: the client must get back what was stored.
    ['entity-looking text', '&amp; &#60;', '&amp;amp; &amp;#60;'],
    ['CDATA end marker', ']]>', ']]&gt;'],
    ['quotes are fine in text', `"it's"`, `"it's"`],
    ['tab and newline kept', 'a\tb\nc', 'a\tb\nc'],
    // A raw CR would come back from any parser as LF.
    ['CR as a reference', 'a\r\nb\rc', 'a&#13;\nb&#13;c'],
    ['control characters dropped', 'a\u0000\u0001\u0008\u000B\u000C\u000E\u001Fb', 'ab'],
    ['DEL kept (XML allows it)', 'a\u007Fb', 'a\u007Fb'],
    ['U+FFFE and U+FFFF dropped, U+FFFD kept', 'a\uFFFE\uFFFF\uFFFDb', 'a\uFFFDb'],
    ['lone high surrogate dropped', 'a\uD83Db', 'ab'],
    ['lone low surrogate dropped', 'a\uDE00b', 'ab'],
    ['reversed surrogate pair dropped', 'a\uDE00\uD83Db', 'ab'],
    ['high surrogate at the end dropped', 'ab\uD83D', 'ab'],
    ['astral emoji kept', 'done 😀🏳️‍🌈', 'done 😀🏳️‍🌈'],
    ['right-to-left text kept', 'קניות مرحبا \u200Fx', 'קניות مرحبا \u200Fx'],
    // Not normalised: the client gets the exact code points it sent.
    ['combining marks kept', 'e\u0301 a\u0308\u0323', 'e\u0301 a\u0308\u0323'],
    ['private use and BMP edge kept', '\uE000\uD7FF', '\uE000\uD7FF'],
    ['integer', 42, '42'],
    ['zero', 0, '0'],
    ['negative fraction', -1.5, '-1.5'],
    ['null', null, ''],
    ['undefined', undefined, ''],
    ['empty string', '', ''],
  ];
  for (const [name, value, out] of cases) {
    test(name, () => assert.equal(escapeText(value), out));
  }

  test('every forbidden control character is dropped, every allowed one kept', () => {
    for (let c = 0; c < 0x20; c++) {
      const ch = String.fromCharCode(c);
      const expected = c === 0x09 || c === 0x0a ? ch : c === 0x0d ? '&#13;' : '';
      assert.equal(escapeText(`x${ch}y`), `x${expected}y`, `U+${c.toString(16).padStart(4, '0')}`);
    }
  });
});

describe('escapeAttr', () => {
  const cases: Array<[string, XmlValue, string]> = [
    ['double quote', 'say "hi"', 'say &quot;hi&quot;'],
    ['single quote kept (attributes use double quotes)', "it's", "it's"],
    ['markup characters', '<a href="x">&</a>', '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;'],
    // Parsers turn raw white space in attributes into spaces; references survive normalisation.
    ['CR, LF and TAB as references', 'a\rb\nc\td', 'a&#13;b&#10;c&#9;d'],
    ['control characters dropped', 'a\u0000\u0007\u001Bb', 'ab'],
    ['lone surrogate and U+FFFF dropped', 'a\uD800\uFFFFb', 'ab'],
    ['emoji and RTL kept', '😀 עברית', '😀 עברית'],
    ['number', 1676980800, '1676980800'],
    ['null', null, ''],
    ['undefined', undefined, ''],
  ];
  for (const [name, value, out] of cases) {
    test(name, () => assert.equal(escapeAttr(value), out));
  }
});

describe('renderXml', () => {
  test('empty element is an open/close pair right after the declaration', () => {
    assert.equal(renderXml({ name: 'a' }), `${DECL}<a></a>`);
    assert.equal(renderXml({ name: 'a', text: '' }), `${DECL}<a></a>`);
    assert.equal(renderXml({ name: 'a', text: null }), `${DECL}<a></a>`);
    assert.equal(renderXml({ name: 'a', children: [] }), `${DECL}<a></a>`);
  });

  test('nested children are written in order with no white space between elements', () => {
    const xml = renderXml({
      name: 'tasks',
      attrs: [
        ['num', 2],
        ['total', 2],
      ],
      children: [
        { name: 'task', children: [{ name: 'id', text: 1 }, { name: 'title', text: 'A & B' }] },
        { name: 'task', children: [{ name: 'id', text: 2 }, { name: 'title', text: '' }, { name: 'note' }] },
      ],
    });
    assert.equal(
      xml,
      `${DECL}<tasks num="2" total="2"><task><id>1</id><title>A &amp; B</title></task>` +
        '<task><id>2</id><title></title><note></note></task></tasks>',
    );
    // Some clients count child nodes: any text node between elements would be counted.
    assert.doesNotMatch(xml, />\s+</);
  });

  test('attributes are escaped and null attribute values are written empty', () => {
    assert.equal(
      renderXml({
        name: 'error',
        attrs: [
          ['id', '"><x a="'],
          ['ref', null],
          ['n', undefined],
        ],
        text: 'x',
      }),
      `${DECL}<error id="&quot;&gt;&lt;x a=&quot;" ref="" n="">x</error>`,
    );
  });

  test('a node with both children and text writes only the children', () => {
    assert.equal(renderXml({ name: 'a', text: 'lost', children: [{ name: 'b' }] }), `${DECL}<a><b></b></a>`);
  });

  test('hostile text and attributes round-trip through an XML parser', () => {
    const hostile = `Tom & "Jerry" <b>'x'</b> ]]> 😀 שלום\nline 2\r\nline\t3 e\u0301`;
    const xml = renderXml({
      name: 'root',
      attrs: [['title', hostile]],
      children: [
        { name: 'note', text: hostile },
        { name: 'num', text: 7 },
        { name: 'dirty', text: `a\u0000b\uD800c\uFFFEd` },
      ],
    });
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: false,
      // Decodes character references such as &#13;.
      htmlEntities: true,
    });
    const doc = parser.parse(xml, true) as {
      root: { '@title': string; note: string; num: string; dirty: string };
    };
    assert.equal(doc.root.note, hostile);
    assert.equal(doc.root['@title'], hostile);
    assert.equal(doc.root.num, '7');
    assert.equal(doc.root.dirty, 'abcd');
  });
});

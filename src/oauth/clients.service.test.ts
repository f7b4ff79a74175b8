import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkRedirectUri } from './clients.service.js';

describe('checkRedirectUri', () => {
  const accepted = [
    'https://app.example.org/cb',
    'https://app.example.org/cb?x=1&y=2',
    'https://app.example.org:8443/oauth/cb',
    'https://app.example.org',
    'HTTPS://App.Example.org/cb',
    // Plain http only to the loopback address (native apps and development).
    'http://localhost:8000/cb',
    'http://localhost/cb',
    'http://LOCALHOST:8000/cb',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:65535/cb',
    'http://127.1.2.3/cb',
    'http://[::1]:9/cb',
    'http://[::1]/cb',
    // Custom schemes for native apps.
    'com.example.app:/oauth',
    'com.example.app:/oauth?x=1',
    'myapp://callback',
    'my-app+v2.x://cb',
    'https://app.example.org/' + 'a'.repeat(2000 - 'https://app.example.org/'.length),
  ];
  for (const uri of accepted) {
    test(`accepts ${uri.slice(0, 60)}`, () => assert.equal(checkRedirectUri(uri), undefined));
  }

  // [name, uri, a word the reason must contain so the developer knows what to fix]
  const refused: Array<[string, string, RegExp]> = [
    ['empty', '', /1 to 2000/],
    ['over 2000 characters', 'https://app.example.org/' + 'a'.repeat(2000), /1 to 2000/],
    ['a fragment', 'https://app.example.org/cb#x', /fragment/],
    ['an empty fragment', 'https://app.example.org/cb#', /fragment/],
    ['a fragment on a custom scheme', 'myapp://cb#x', /fragment/],
    ['a space', 'https://app.example.org/c b', /spaces/],
    ['a leading space', ' https://app.example.org/cb', /spaces/],
    ['a tab', 'https://app.example.org/\tcb', /spaces/],
    ['a newline (header injection)', 'https://app.example.org/cb\r\nSet-Cookie: x=1', /spaces/],
    ['NUL', 'https://app.example.org/cb\u0000', /control/],
    ['DEL', 'https://app.example.org/cb\u007F', /control/],
    ['a non-breaking space', 'https://app.example.org/c\u00A0b', /spaces/],
    ['a relative path', '/cb', /absolute/],
    ['a scheme-relative address', '//app.example.org/cb', /absolute/],
    ['no scheme at all', 'app.example.org/cb', /absolute/],
    ['a scheme starting with a digit', '1app://cb', /absolute/],
    ['javascript:', 'javascript:alert(1)', /javascript/],
    ['javascript: in capitals', 'JavaScript:alert(1)', /javascript/],
    ['javascript: with a // comment', 'javascript://%0Aalert(1)', /javascript/],
    ['data:', 'data:text/html,<script>alert(1)</script>', /data/],
    ['vbscript:', 'vbscript:msgbox(1)', /vbscript/],
    ['file:', 'file:///etc/passwd', /file/],
    ['about:', 'about:blank', /about/],
    ['blob:', 'blob:https://app.example.org/0f3a', /blob/],
    ['http to a public host', 'http://example.org/cb', /https/],
    ['http to a host that starts like loopback', 'http://127.0.0.1.evil.com/cb', /https/],
    ['http to a host that starts like localhost', 'http://localhost.evil.com/cb', /https/],
    ['http to a host ending in localhost', 'http://evillocalhost/cb', /https/],
    ['http to the unspecified address', 'http://0.0.0.0/cb', /https/],
    ['credentials', 'https://u:p@app.example.org/cb', /credentials/],
    ['a user name only', 'https://u@app.example.org/cb', /credentials/],
    ['a password only', 'https://:p@app.example.org/cb', /credentials/],
    ['credentials hiding a public host behind loopback', 'http://localhost@evil.com/cb', /credentials/],
    ['an unparseable https address', 'https://exa[mple.org/cb', /valid/],
    ['a wildcard host', 'https://*.example.com/cb', /wildcard/],
    ['a wildcard inside a host label', 'https://app-*.example.com/cb', /wildcard/],
    ['a percent-encoded wildcard host', 'https://%2A.example.com/cb', /wildcard/],
    ['a wildcard path', 'https://app.example.com/*', /wildcard/],
    ['a wildcard port', 'https://app.example.com:*/cb', /wildcard/],
    ['a wildcard on loopback', 'http://localhost:*/cb', /wildcard/],
    ['a wildcard in a custom scheme', 'com.example.*:/cb', /wildcard/],
  ];
  for (const [name, uri, reason] of refused) {
    test(`refuses ${name}`, () => {
      const problem = checkRedirectUri(uri);
      assert.ok(problem !== undefined, `accepted ${uri}`);
      assert.match(problem, reason);
    });
  }
});

describe('edge cases found in review', () => {
  test('host:port without a scheme is refused, not taken for a custom scheme', () => {
    for (const uri of ['localhost:8000/cb', 'example.org:443/cb', 'localhost:3000']) {
      assert.match(checkRedirectUri(uri) ?? '', /host:port/, uri);
    }
    assert.equal(checkRedirectUri('com.example.app:/oauth'), undefined);
  });
});

describe('redirect addresses that would break a Location header or confuse URL parsers', () => {
  test('are refused', () => {
    for (const uri of ['https://app.example.org/cb/☃', 'https://app.example.org/cb/é', 'http://localhost\\@evil.example/cb', 'view-source:https://x.example', 'jar:https://x.example!/']) {
      assert.notEqual(checkRedirectUri(uri), undefined, uri);
    }
    assert.equal(checkRedirectUri('https://app.example.org/cb/%E2%98%83'), undefined, 'percent-encoded is fine');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatRateRule, parseRateRule, type RateRule } from './rate-rule.js';

const OFF: RateRule = { limit: 0, windowSeconds: 1 };

describe('parseRateRule', () => {
  const good: Array<[string, RateRule]> = [
    ['100/1h', { limit: 100, windowSeconds: 3600 }],
    ['10/15m', { limit: 10, windowSeconds: 900 }],
    ['5/30s', { limit: 5, windowSeconds: 30 }],
    // A bare unit means one of it.
    ['1000/h', { limit: 1000, windowSeconds: 3600 }],
    ['30/s', { limit: 30, windowSeconds: 1 }],
    ['1/d', { limit: 1, windowSeconds: 86400 }],
    // Seven days is the longest window allowed, in any unit.
    ['10/7d', { limit: 10, windowSeconds: 7 * 86400 }],
    ['10/604800s', { limit: 10, windowSeconds: 604800 }],
    ['10/168h', { limit: 10, windowSeconds: 604800 }],
    ['0', OFF],
    ['off', OFF],
    ['OFF', OFF],
    [' off ', OFF],
    // Operators write rules by hand: spaces and capitals are forgiven.
    [' 100 / 1 h ', { limit: 100, windowSeconds: 3600 }],
    ['100/1H', { limit: 100, windowSeconds: 3600 }],
    ['10/15M', { limit: 10, windowSeconds: 900 }],
    ['007/01m', { limit: 7, windowSeconds: 60 }],
  ];
  for (const [text, rule] of good) {
    test(`${JSON.stringify(text)} → ${rule.limit} per ${rule.windowSeconds}s`, () => {
      assert.deepEqual(parseRateRule(text), rule);
    });
  }

  const bad = [
    '',
    ' ',
    'abc',
    '10',
    '10/',
    '/1h',
    '10/0h',
    '10/00m',
    '0/1h',
    '00',
    '10/8d',
    '10/604801s',
    '10/169h',
    '-1/1h',
    '10/-1h',
    '1.5/1h',
    '10/1.5h',
    '10/1w',
    '10/1hh',
    '10//1h',
    '10/1h/1m',
    '1e3/1h',
    '0x10/1h',
    'off/1h',
    'none',
    '10 per hour',
    '1234567890/1h',
    '10/1234567890s',
  ];
  for (const text of bad) {
    test(`${JSON.stringify(text)} is refused`, () => assert.equal(parseRateRule(text), undefined));
  }
});

describe('formatRateRule', () => {
  const cases: Array<[RateRule, string]> = [
    [OFF, 'off'],
    [{ limit: 0, windowSeconds: 3600 }, 'off'],
    [{ limit: 100, windowSeconds: 3600 }, '100/3600s'],
    [{ limit: 1, windowSeconds: 1 }, '1/1s'],
  ];
  for (const [rule, text] of cases) {
    test(`${JSON.stringify(rule)} → ${text}`, () => assert.equal(formatRateRule(rule), text));
  }

  // What is shown (in logs, the admin page) must read back as the same rule.
  for (const text of ['100/1h', '10/15m', '5/30s', '1/7d', 'off']) {
    test(`${text} survives format then parse`, () => {
      const rule = parseRateRule(text);
      assert.ok(rule);
      assert.deepEqual(parseRateRule(formatRateRule(rule)), rule);
    });
  }
});

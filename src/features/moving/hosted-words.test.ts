import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarDate, clockTime, dateStamp, dueDateModifier, priority, repeatRule, star, status, wholeNumber, type Read } from './hosted-words.js';

/** The value read, or the string `problem` when the wording is refused. */
const v = <T>(r: Read<T>): T | 'problem' => ('value' in r ? r.value : 'problem');

describe('the hosted export files: values', () => {
  it('dates: YYYY-MM-DD (a time after it ignored), blanks and 0000-00-00 are none, other forms refused', () => {
    assert.equal(v(calendarDate('2017-09-14')), '2017-09-14');
    assert.equal(v(calendarDate(' 2017-09-14 08:00:00 ')), '2017-09-14');
    for (const none of ['', '  ', '0', '0000-00-00', undefined]) assert.equal(v(calendarDate(none)), undefined);
    for (const bad of ['09/14/2017', '14.09.2017', 'tomorrow', '2017-9-14']) assert.equal(v(calendarDate(bad)), 'problem', bad);
    assert.equal(dateStamp('2017-09-14'), Date.UTC(2017, 8, 14, 12) / 1000);
    assert.equal(dateStamp('bad'), 0);
  });

  it('times: 12-hour with am/pm in its spellings, 24-hour with minutes; others refused', () => {
    const table: Array<[string, number]> = [
      ['8:00 pm', 20 * 3600],
      ['8pm', 20 * 3600],
      ['8:05PM', 20 * 3600 + 300],
      ['12:00 am', 0],
      ['12:30 pm', 12 * 3600 + 1800],
      ['9:30 a.m.', 9 * 3600 + 1800],
      ['20:00', 20 * 3600],
      ['07:15:30', 7 * 3600 + 15 * 60 + 30],
    ];
    for (const [text, seconds] of table) assert.equal(v(clockTime(text)), seconds, text);
    assert.equal(v(clockTime('')), undefined);
    for (const bad of ['25:00', '13:00 pm', '0 am', '8', 'noon', '8:60 pm']) assert.equal(v(clockTime(bad)), 'problem', bad);
  });

  it('priority, star, status, due-date modifier, numbers', () => {
    assert.deepEqual(['-1', '0', '3', 'Negative', 'low', 'Medium', 'HIGH', 'Top', '2 - High'].map((p) => v(priority(p))), [-1, 0, 3, -1, 0, 1, 2, 3, 2]);
    assert.equal(v(priority('4')), 'problem');
    assert.equal(v(priority('Urgent')), 'problem');
    assert.deepEqual(['Yes', 'no', '1', '0', ''].map((s) => v(star(s))), [1, 0, 1, 0, undefined]);
    assert.equal(v(star('Maybe')), 'problem');
    assert.deepEqual(['None', 'Next Action', 'next-action', 'Waiting', 'Canceled', 'Cancelled', 'Reference', '7'].map((s) => v(status(s))), [0, 1, 1, 5, 9, 9, 10, 7]);
    assert.equal(v(status('Sleeping')), 'problem');
    assert.equal(v(status('11')), 'problem');
    assert.deepEqual(['0', '3', 'Due On', 'optionally'].map((s) => v(dueDateModifier(s))), [0, 3, 1, 3]);
    assert.equal(v(dueDateModifier('Soon')), 'problem');
    assert.equal(v(wholeNumber('90', 'length')), 90);
    assert.equal(v(wholeNumber('1:30', 'length')), 90);
    assert.equal(v(wholeNumber('1:30', 'timer')), 'problem');
    assert.equal(v(wholeNumber('lots', 'length')), 'problem');
  });

  it('repeat wordings become rules; the ones not listed are refused', () => {
    const table: Array<[string, string]> = [
      ['', ''],
      ['None', ''],
      ['Daily', 'FREQ=DAILY'],
      ['Weekly', 'FREQ=WEEKLY'],
      ['Biweekly', 'FREQ=WEEKLY;INTERVAL=2'],
      ['Monthly', 'FREQ=MONTHLY'],
      ['Bimonthly', 'FREQ=MONTHLY;INTERVAL=2'],
      ['Quarterly', 'FREQ=MONTHLY;INTERVAL=3'],
      ['Semiannually', 'FREQ=MONTHLY;INTERVAL=6'],
      ['Yearly', 'FREQ=YEARLY'],
      ['With Parent', 'PARENT'],
      ['Every day', 'FREQ=DAILY'],
      ['Every 3 days', 'FREQ=DAILY;INTERVAL=3'],
      ['every other week', 'FREQ=WEEKLY;INTERVAL=2'],
      ['Every 6 months', 'FREQ=MONTHLY;INTERVAL=6'],
      ['Every 2 years', 'FREQ=YEARLY;INTERVAL=2'],
      ['Every Mon, Wed', 'FREQ=WEEKLY;BYDAY=MO,WE'],
      ['Every Tuesday and Thursday', 'FREQ=WEEKLY;BYDAY=TU,TH'],
      ['Every Thurs, Fri, Sat', 'FREQ=WEEKLY;BYDAY=TH,FR,SA'],
      ['Every weekday', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'],
      ['Every weekend', 'FREQ=WEEKLY;BYDAY=SA,SU'],
      ['The 2nd Tue of each month', 'FREQ=MONTHLY;BYDAY=2TU'],
      ['On the last Friday of every month', 'FREQ=MONTHLY;BYDAY=-1FR'],
      ['Every 2 weeks from completion', 'FREQ=WEEKLY;INTERVAL=2;FROMCOMP'],
      ['Monthly (from completion date)', 'FREQ=MONTHLY;FROMCOMP'],
      ['FREQ=WEEKLY;BYDAY=MO;FROMCOMP', 'FREQ=WEEKLY;BYDAY=MO;FROMCOMP'],
      ['RRULE:FREQ=DAILY', 'FREQ=DAILY'],
      ['PARENT', 'PARENT'],
    ];
    for (const [text, rule] of table) assert.equal(v(repeatRule(text)), rule, text);
    assert.equal(v(repeatRule('Weekly', true)), 'FREQ=WEEKLY;FROMCOMP', 'the XML backup says repeatfrom=1');
    for (const bad of ['Every full moon', 'Every 0 days', 'Every Mo', 'The 6th Monday of each month', 'Every 3rd weekday', 'Fortnightly']) {
      assert.equal(v(repeatRule(bad)), 'problem', bad);
    }
  });
});

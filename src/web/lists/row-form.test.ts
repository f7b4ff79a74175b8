import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Params } from '../../http/params.js';
import type { ListColumn } from '../../storage/store.js';
import { fieldNames, fieldOfProblem, fieldValue, formValues, localTime, mergedValues, postedCells, postedValues, problemText, shownText } from './row-form.js';

/** A list row as a form and back (row-form.ts): pure, the API's reader judges what it sends. */

const col = (id: number, type: number, choices?: string[]): ListColumn => ({ id, title: `Col ${id}`, type, width: 100, sort: 0, ...(choices && { choices }) });
const TEXT = col(1, 19);
const MONEY = col(2, 2);
const DONE = col(3, 1);
const SHOPS = col(4, 9, ['market', 'bakery', 'corner']);
const DAY = col(5, 3);
const AT = col(6, 4);
const SIZE = col(7, 10, ['S', 'M']);
const STAR = col(8, 17);
const COLS = [TEXT, MONEY, DONE, SHOPS, DAY, AT, SIZE, STAR];

/** timezone 10 is UTC (half hours from UTC-5); 20 is five hours ahead; 0 five hours behind. */
const utc = { prefs: { timezone: 10 } } as Parameters<typeof fieldValue>[0];
const ahead = { prefs: { timezone: 20 } } as Parameters<typeof fieldValue>[0];
const behind = { prefs: { timezone: 0 } } as Parameters<typeof fieldValue>[0];

const form = (fields: Record<string, string>): Params => Params.from(fields);
const NOON_MARCH_14 = Date.UTC(2026, 2, 14, 12) / 1000;

describe('row form', () => {
  it('shows each stored cell as its field holds it', () => {
    assert.equal(fieldValue(utc, TEXT, 'Milk'), 'Milk');
    assert.equal(fieldValue(utc, MONEY, 2.5), '2.50');
    assert.equal(fieldValue(utc, col(9, 12.3), 1.5), '1.500');
    assert.equal(fieldValue(utc, col(9, 13), -7), '-7');
    assert.equal(fieldValue(utc, DONE, 1), true);
    assert.equal(fieldValue(utc, DONE, 0), false);
    assert.equal(fieldValue(utc, STAR, undefined), false);
    assert.deepEqual(fieldValue(utc, SHOPS, ['market', 'corner']), ['market', 'corner']);
    assert.deepEqual(fieldValue(utc, SHOPS, undefined), []);
    assert.equal(fieldValue(utc, DAY, NOON_MARCH_14), '2026-03-14');
    // A date is a day: the same in every timezone.
    assert.equal(fieldValue(behind, DAY, NOON_MARCH_14), '2026-03-14');
    assert.equal(fieldValue(utc, AT, Date.UTC(2026, 2, 14, 22, 30, 59) / 1000), '2026-03-14T22:30');
    assert.equal(fieldValue(ahead, AT, Date.UTC(2026, 2, 14, 22, 30) / 1000), '2026-03-15T03:30');
    assert.equal(fieldValue(utc, TEXT, undefined), '');
  });

  it('reads a date and time in the account\'s timezone, and leaves anything else to the API', () => {
    assert.equal(localTime(utc, '2026-03-14T22:30'), Date.UTC(2026, 2, 14, 22, 30) / 1000);
    assert.equal(localTime(ahead, '2026-03-15T03:30'), Date.UTC(2026, 2, 14, 22, 30) / 1000);
    assert.equal(localTime(behind, '2026-03-14 17:30:15'), Date.UTC(2026, 2, 14, 22, 30, 15) / 1000);
    assert.equal(localTime(utc, '2026-02-30T10:00'), '2026-02-30T10:00', 'no such day: as typed');
    assert.equal(localTime(utc, '2026-03-14T24:00'), '2026-03-14T24:00', 'no such hour: as typed');
    assert.equal(localTime(utc, 'tomorrow'), 'tomorrow');
    assert.equal(localTime(utc, '2026-03-14'), '2026-03-14', 'a day alone is the API\'s to read');
  });

  it('a new row sends what was typed, an unticked box and an empty field as empty cells', () => {
    const cells = postedCells(ahead, COLS, form({ c1: 'Bread', c2: '2.345', 'c4.0': 'market', 'c4.2': 'corner', c5: '2026-03-14', c6: '2026-03-15T03:30', c7: 'M', c8: '1' }));
    assert.deepEqual(cells, { c1: 'Bread', c2: '2.345', c3: '', c4: ['market', 'corner'], c5: '2026-03-14', c6: Date.UTC(2026, 2, 14, 22, 30) / 1000, c7: 'M', c8: 1 });
    assert.deepEqual(postedCells(utc, COLS, form({})), { c1: '', c2: '', c3: '', c4: '', c5: '', c6: '', c7: '', c8: '' });
  });

  it('an edit sends every field left as the form showed it as the stored value itself', () => {
    const stored = { c1: 'Bread', c2: 2.5, c3: 0, c4: ['bakery'], c5: NOON_MARCH_14, c6: Date.UTC(2026, 2, 14, 22, 30, 59) / 1000 };
    const shown = formValues(ahead, COLS, stored);
    const fields: Record<string, string> = { c1: 'Bread', c2: '2.50', 'c4.1': 'bakery', c5: '2026-03-14', c6: String(shown['c6']), c7: '' };
    // The seconds the form cannot show are kept, 0 stays 0 (not emptied), an empty cell stays empty.
    assert.deepEqual(postedCells(ahead, COLS, form(fields), stored), { ...stored, c7: '', c8: '' });
    // What was changed is sent: ticking, unticking, emptying, a new time (to the minute).
    const changed = postedCells(ahead, COLS, form({ ...fields, c2: '', c3: '1', 'c4.1': '', c6: '2026-03-15T04:00', c8: '1' }), stored);
    assert.deepEqual(changed, { ...stored, c2: '', c3: 1, c4: [], c6: Date.UTC(2026, 2, 14, 23, 0) / 1000, c7: '', c8: 1 });
    assert.equal(postedCells(utc, [DONE], form({}), { c3: 1 })['c3'], 0, 'unticking a ticked box sends 0');
  });

  it('a refused form shows what was typed; field names and the refusal\'s field, said with its title', () => {
    assert.deepEqual(postedValues([TEXT, DONE, SHOPS], form({ c1: 'x', c3: '1', 'c4.1': 'bakery' })), { c1: 'x', c3: true, c4: ['bakery'] });
    const names = fieldNames([TEXT, SHOPS, DONE]);
    assert.deepEqual(names.slice(0, 4), ['was.c1', 'c1', 'was.c4', 'c4.0']);
    assert.equal(names.length, 2 + 1 + 100 + 2, 'a pick-several column: a box name for each of the most choices a column has');
    assert.equal(fieldOfProblem('Invalid cell: c12 (Qty) must be a whole number'), 'c12');
    assert.equal(fieldOfProblem('Max rows reached: a list holds at most 5000'), undefined);
    const size = { ...SIZE, title: 'Size (a) b' };
    assert.equal(problemText([size], 'Invalid cell: c7 (Size (a) b) must be one of its choices ("S", "M")'), 'Size (a) b must be one of its choices ("S", "M")');
    assert.equal(problemText([{ ...SIZE, title: '' }], 'Invalid cell: c7 (untitled) must be one of its choices ("S", "M")'), 'Untitled must be one of its choices ("S", "M")');
    assert.equal(problemText([SIZE], 'Max rows reached: a list holds at most 5000'), 'Max rows reached: a list holds at most 5000');
  });

  it('line breaks are read as stored, from the CRLF a browser sends', () => {
    assert.deepEqual(postedCells(utc, [col(9, 18)], form({ c9: 'one\r\ntwo\rthree' }), { c9: 'one\ntwo\nthree' }), { c9: 'one\ntwo\nthree' });
    // A text an app stored with CRLF, sent back as shown: the stored text itself, no change.
    assert.equal(fieldValue(utc, col(9, 18), 'one\r\ntwo'), 'one\ntwo');
    assert.deepEqual(postedCells(utc, [col(9, 18)], form({ c9: 'one\r\ntwo' }), { c9: 'one\r\ntwo' }), { c9: 'one\r\ntwo' });
    assert.deepEqual(postedCells(utc, [col(9, 18)], form({ c9: 'one\r\ntwo!' }), { c9: 'one\r\ntwo' }), { c9: 'one\ntwo!' });
  });

  it('a pick-several box sends its choice: choices reordered or added while the form was open change nothing', () => {
    const later = { ...SHOPS, choices: ['deli', 'corner', 'market', 'bakery'] };
    assert.deepEqual(postedValues([later], form({ 'c4.0': 'market', 'c4.2': 'corner', 'c4.3': 'gone' })), { c4: ['corner', 'market'] });
    assert.deepEqual(postedCells(utc, [later], form({ 'c4.1': 'bakery' }), { c4: ['bakery'] }), { c4: ['bakery'] });
  });

  it('after a stale save, the fields the person changed keep what was typed and the others take the row as it now is', () => {
    const was = formValues(utc, COLS, { c1: 'Soap', c2: 1, c4: ['market'] });
    const hidden = Object.fromEntries(COLS.map((c) => [`was.c${c.id}`, shownText(was[`c${c.id}`] ?? '')]));
    // The person changed Item and unticked market; an app changed Money and picked bakery meanwhile.
    const p = form({ ...hidden, c1: 'Soap bars', c2: '1.00' });
    const now = { c1: 'Soap', c2: 3, c4: ['market', 'bakery'], c8: 1 };
    const merged = mergedValues(utc, COLS, p, now);
    assert.equal(merged['c1'], 'Soap bars');
    assert.equal(merged['c2'], '3.00');
    assert.deepEqual(merged['c4'], []);
    assert.equal(merged['c8'], true);
    assert.equal(merged['c3'], false);
  });
});

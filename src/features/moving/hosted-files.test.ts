import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostedFixture as fixture } from '../../../test/fixtures.js';
import { readHostedCsv, readHostedXml } from './hosted-files.js';
import { HostedFileSource } from './hosted-source.js';

describe('the hosted export files: reading', () => {
  it('CSV: the header names the columns, quoted values keep commas, quotes and line breaks', () => {
    const file = readHostedCsv(fixture('tasks.csv'));
    assert.equal(file.contents, 'tasks');
    assert.equal(file.rows.length, 7);
    const ann = file.rows[1];
    assert.equal(ann?.['title'], 'Call Ann');
    assert.equal(ann?.['duetime'], '8:00 pm');
    assert.equal(ann?.['note'], 'She asked about the trip,\r\nand the "big" question');
    assert.equal(file.rows[0]?.['tag'], 'money, bills');
  });

  it('CSV: a byte-order mark, header case and a notebook are recognised; other files are refused', () => {
    const bom = readHostedCsv(`\uFEFF task ,Folder\r\nA,B\r\n`);
    assert.deepEqual(bom.rows, [{ title: 'A', folder: 'B' }]);
    const notes = readHostedCsv(fixture('notebook.csv'));
    assert.equal(notes.contents, 'notes');
    assert.equal(notes.rows[0]?.['note'], 'passport\r\ncharger, adapter');
    assert.throws(() => readHostedCsv('NAME,EMAIL\r\na,b\r\n'), /no TASK column/);
    assert.throws(() => readHostedCsv('"TASK\r\n'), /not a CSV file/);
    assert.throws(() => readHostedCsv(''), /no TASK column/);
  });

  it('XML: one row per item, entities decoded, values kept as text; other documents refused', () => {
    const file = readHostedXml(fixture('backup.xml'));
    assert.equal(file.rows.length, 4);
    assert.equal(file.rows[0]?.['note'], 'Boxes & tape <lots>');
    assert.equal(file.rows[0]?.['priority'], 'Medium');
    assert.equal(file.rows[1]?.['parent'], '1001');
    const one = readHostedXml('<xml><item><id>7</id><title>0012</title></item></xml>');
    assert.deepEqual(one.rows, [{ id: '7', title: '0012' }]);
    assert.deepEqual(readHostedXml('<xml><title>empty</title></xml>').rows, []);
    assert.throws(() => readHostedXml('<tasks><item/></tasks>'), /root element is not <xml>/);
    assert.throws(() => readHostedXml('<xml><item>'), /not an XML file/);
    const laughs = '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><xml><item><title>&b;</title></item></xml>';
    assert.throws(() => readHostedXml(laughs), /document type declaration/);
  });

  it('the source: organisers by name, tasks as the API would send them, what it cannot read counted', async () => {
    const source = HostedFileSource.parse('csv', fixture('tasks.csv'));
    assert.equal(source.key, 'hosted-csv');
    assert.equal(source.partial, true);
    // "Home" and "home" are one folder, under the first spelling.
    assert.deepEqual(await source.organizers('folder'), [
      { id: 'home', name: 'Home' },
      { id: 'work', name: 'Work' },
    ]);
    assert.deepEqual(await source.organizers('goal'), [{ id: 'get promoted', name: 'Get promoted' }]);
    const { records } = await source.page('task', { after: 0, start: 0 });
    const byTitle = (t: string) => records.filter((r) => r['title'] === t);
    const rent = byTitle('Pay the rent')[0];
    assert.equal(rent?.['id'], 'Pay the rent | Home');
    assert.equal(rent?.['repeat'], 'FREQ=MONTHLY');
    assert.equal(rent?.['status'], 1);
    assert.equal(rent?.['star'], 1);
    assert.equal(rent?.['priority'], 2);
    assert.equal(rent?.['duedate'], '2026-03-01');
    const [ann, ann2] = byTitle('Call Ann');
    assert.equal(ann?.['id'], 'Call Ann | Home | Phone');
    assert.equal(ann2?.['id'], 'Call Ann | Home | Phone #2', 'two alike rows stay two tasks');
    assert.equal(ann?.['duetime'], Date.UTC(2026, 2, 2, 20) / 1000, 'a floating time on its due day');
    const report = byTitle('Write the report')[0];
    assert.equal(report?.['starttime'], Date.UTC(2026, 1, 20, 9, 30) / 1000);
    assert.deepEqual([report?.['repeat'], report?.['length'], report?.['timer'], report?.['priority']], ['FREQ=WEEKLY;BYDAY=MO,WE', 90, 1200, 2]);
    assert.equal(byTitle('Water the plants')[0]?.['repeat'], 'FREQ=WEEKLY;INTERVAL=2;FROMCOMP');
    assert.equal(byTitle('Stretch')[0]?.['repeat'], 'FREQ=MONTHLY;BYDAY=-1FR');
    assert.equal(byTitle('Stretch')[0]?.['folder'], '0');
    const odd = byTitle('Odd one')[0];
    assert.deepEqual([odd?.['duedate'], odd?.['duetime'], odd?.['repeat'], odd?.['priority'], odd?.['status'], odd?.['star']], [0, 0, '', 0, 0, 0]);
    const warnings = source.warnings();
    assert.equal(warnings.length, 6, warnings.join('\n'));
    assert.ok(warnings.some((w) => /repeat "Every full moon".*left out of 1 record$/.test(w)));
    assert.ok(warnings.some((w) => /date "03\/04\/2026"/.test(w)));
    // The same text gives the same stand-in for modified; a changed row another.
    const again = await HostedFileSource.parse('csv', fixture('tasks.csv')).page('task', { after: 0, start: 0 });
    assert.deepEqual(again.records.map((r) => r['modified']), records.map((r) => r['modified']));
    const changed = await HostedFileSource.parse('csv', fixture('tasks.csv').replace('Transfer to the landlord', 'Pay cash')).page('task', { after: 0, start: 0 });
    assert.notEqual(changed.records[0]?.['modified'], records[0]?.['modified']);
    assert.equal(changed.records[1]?.['modified'], records[1]?.['modified']);
  });

  it('the XML source: ids, parents and order from the backup; No Folder is none', async () => {
    const source = HostedFileSource.parse('xml', fixture('backup.xml'));
    assert.equal(source.key, 'hosted-xml');
    const { records } = await source.page('task', { after: 0, start: 0 });
    assert.deepEqual(records.map((r) => [r['id'], r['parent'], r['order']]), [
      ['1001', '0', 0],
      ['1002', '1001', 2],
      ['1003', '1001', 1],
      ['1004', '0', 0],
    ]);
    assert.deepEqual([records[0]?.['priority'], records[0]?.['status'], records[0]?.['duedatemod'], records[0]?.['star']], [1, 3, 1, 1]);
    assert.equal(records[1]?.['completed'], '2026-03-15');
    assert.equal(records[0]?.['completed'], 0);
    assert.equal(records[2]?.['repeat'], 'FREQ=WEEKLY;FROMCOMP');
    assert.equal(records[3]?.['folder'], '0');
    assert.deepEqual(source.warnings(), []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, parseEndpointUrl, resolveTarget, TargetRefused, type Lookup } from './targets.js';

const fixed = (...addresses: string[]): Lookup => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook targets', () => {
  it('only public addresses are public', () => {
    const inner = [
      '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.18.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8', '64:ff9b::a00:1', '2001:db8::1', '2002:c0a8:101::1',
      'not an address',
    ];
    for (const a of inner) assert.equal(isPublicAddress(a), false, a);
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e']) assert.equal(isPublicAddress(a), true, a);
  });

  it('an address is https, without credentials or fragment; http only where private targets are allowed', () => {
    assert.equal(parseEndpointUrl(' https://hooks.example.org/t?x=1 ', false).href, 'https://hooks.example.org/t?x=1');
    const refused: Array<[string, RegExp]> = [
      ['http://hooks.example.org/', /https/],
      ['ftp://hooks.example.org/', /https/],
      ['https://user:pw@hooks.example.org/', /user name or password/],
      ['https://hooks.example.org/#x', /fragment/],
      ['hooks.example.org/x', /not an address/],
      ['', /required/],
      [`https://hooks.example.org/${'a'.repeat(2000)}`, /longer/],
    ];
    for (const [url, why] of refused) assert.throws(() => parseEndpointUrl(url, false), (err: unknown) => err instanceof TargetRefused && why.test(err.message), url);
    assert.equal(parseEndpointUrl('http://127.0.0.1:8080/hook', true).protocol, 'http:');
  });

  it('resolves the name and refuses it when any of its addresses is not public, unless private targets are allowed', async () => {
    const url = new URL('https://hooks.example.org/t');
    assert.deepEqual(await resolveTarget(url, false, fixed('93.184.215.14', '2606:4700:4700::1111')), { url, address: '93.184.215.14', family: 4 });
    await assert.rejects(resolveTarget(url, false, fixed('93.184.215.14', '10.0.0.7')), /resolves to 10\.0\.0\.7, which is not a public address/);
    await assert.rejects(resolveTarget(url, false, fixed()), /does not resolve/);
    await assert.rejects(resolveTarget(url, false, async () => Promise.reject(new Error('ENOTFOUND'))), /does not resolve/);
    assert.equal((await resolveTarget(url, true, fixed('10.0.0.7'))).address, '10.0.0.7');
    for (const literal of ['https://127.0.0.1/', 'https://[::1]/', 'https://169.254.169.254/latest/meta-data', 'https://[::ffff:10.0.0.1]/']) {
      await assert.rejects(resolveTarget(new URL(literal), false, fixed('93.184.215.14')), TargetRefused, literal);
    }
    assert.deepEqual(await resolveTarget(new URL('https://[2606:4700:4700::1111]/'), false), { url: new URL('https://[2606:4700:4700::1111]/'), address: '2606:4700:4700::1111', family: 6 });
    await assert.rejects(resolveTarget(new URL('https://localhost/'), false), /not a public address/, 'localhost, resolved by the system');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyOf, newMessageId, newSecret, sign, signedHeaders } from './signature.js';

describe('Standard Webhooks signatures', () => {
  it('sign the specification’s example as its reference libraries do', () => {
    // The example of the Standard Webhooks specification's test suite.
    assert.equal(sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('make secrets of 32 random bytes as whsec_ and base64, and message ids', () => {
    const a = newSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(keyOf(a).length, 32);
    assert.notEqual(a, newSecret());
    assert.match(newMessageId(), /^msg_[0-9a-f]{24}$/);
    assert.throws(() => keyOf('secret'), /whsec_/);
  });

  it('give the three headers of an attempt', () => {
    const secret = newSecret();
    const h = signedHeaders(secret, 'msg_1', 1700000000, '{"type":"test"}');
    assert.deepEqual(h, { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': sign(secret, 'msg_1', 1700000000, '{"type":"test"}') });
    assert.notEqual(sign(secret, 'msg_1', 1700000001, '{"type":"test"}'), h['webhook-signature'], 'the timestamp is signed');
  });
});

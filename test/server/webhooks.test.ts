// Webhook signatures as the Standard Webhooks specification has them, checked with its library as a receiver would:
// the id, the timestamp and the body are signed together, so a replay with a new timestamp, a changed body or a
// stale delivery is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { signedHeaders, webhookSigner } from '../../crawl/webhooks.ts';

const body = JSON.stringify({ type: 'crawl.completed', id: 'abc' });

test("a delivery verifies with the secret's bytes, or with a whsec_ key as given", () => {
  const raw = signedHeaders(webhookSigner('plain secret'), 'msg_1', body);
  assert.equal(new Webhook(Buffer.from('plain secret'), { format: 'raw' }).verify(body, raw), JSON.parse(body));
  const key = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const std = signedHeaders(webhookSigner(key), 'msg_2', body);
  assert.match(std['webhook-signature']!, /^v1,[A-Za-z0-9+/=]+$/);
  assert.equal(new Webhook(key).verify(body, std), JSON.parse(body));
});

test('a changed body, a changed timestamp, another id or a stale delivery is refused', () => {
  const verifier = new Webhook(Buffer.from('s'), { format: 'raw' });
  const headers = signedHeaders(webhookSigner('s'), 'msg_3', body);
  assert.throws(() => verifier.verify(body.replace('abc', 'abd'), headers));
  assert.throws(() =>
    verifier.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }),
  );
  assert.throws(() => verifier.verify(body, { ...headers, 'webhook-id': 'msg_4' }));
  const old = signedHeaders(webhookSigner('s'), 'msg_5', body, new Date(Date.now() - 10 * 60_000));
  assert.throws(() => verifier.verify(body, old), /timestamp/i);
});

test.run();

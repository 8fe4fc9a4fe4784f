import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader } from './signature.js';

describe('signatureHeader', () => {
  it('matches the known-answer vector of the Standard Webhooks libraries', () => {
    // From standard-webhooks/libraries/javascript/src/webhook.test.ts ("sign function works").
    const header = signatureHeader(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('equals an HMAC-SHA256 computed independently over "id.timestamp.body" with the base64-decoded secret', () => {
    const secret = newWebhookSecret();
    const body = '{"id":"evt_1","note":"é ✓"}';
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`evt_1.1700000000.${body}`, 'utf8')
      .digest('base64');
    expect(signatureHeader([secret], 'evt_1', 1_700_000_000, body)).toBe(`v1,${expected}`);
  });

  it('carries one signature per secret, space-separated, each verifiable by the library', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const body = '{"id":"evt_2"}';
    const header = signatureHeader([current, previous], 'evt_2', now, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'evt_2', 'webhook-timestamp': String(now), 'webhook-signature': header };
    expect(new Webhook(current).verify(body, headers)).toEqual({ id: 'evt_2' });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ id: 'evt_2' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ followed by base64 of 32 random bytes, different every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, newWebhookSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });
});

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from './errors.js';
import { unwrap } from './webhooks.js';

/** Deliveries signed by the `standardwebhooks` package, the library the service signs with. */
const secret = `whsec_${Buffer.from('a secret of thirty-two bytes long').toString('base64')}`;
const other = `whsec_${Buffer.from('another secret, thirty-two bytes').toString('base64')}`;
const event = {
  id: 'evt_1',
  object: 'event',
  type: 'session.completed',
  created_at: 1,
  livemode: false,
  data: { object: { id: 'sess_1' } },
};
const body = JSON.stringify(event);

function signed(withSecret: string, at = new Date(), id = 'evt_1', payload = body) {
  const signature = new Webhook(withSecret).sign(id, at, payload);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

describe('webhooks.unwrap', () => {
  it('returns the event of a delivery signed with the secret, from a string or bytes, with any header casing', async () => {
    const headers = signed(secret);
    await expect(unwrap(body, headers, secret)).resolves.toEqual(event);
    await expect(unwrap(new TextEncoder().encode(body), new Headers(headers), secret)).resolves.toEqual(event);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(unwrap(body, upper, secret)).resolves.toEqual(event);
  });

  it('accepts a delivery during a rotation, when one of the listed signatures matches', async () => {
    const headers = signed(other);
    headers['webhook-signature'] = `${signed(secret)['webhook-signature']} ${headers['webhook-signature']}`;
    await expect(unwrap(body, headers, other)).resolves.toEqual(event);
  });

  it('refuses a changed body, another secret, an old or future timestamp, missing headers and a body of another event', async () => {
    const refused = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(WebhookVerificationError);
    await refused(unwrap(body.replace('sess_1', 'sess_2'), signed(secret), secret));
    await refused(unwrap(body, signed(other), secret));
    await refused(unwrap(body, signed(secret, new Date(Date.now() - 6 * 60_000)), secret));
    await refused(unwrap(body, signed(secret, new Date(Date.now() + 6 * 60_000)), secret));
    await refused(unwrap(body, { 'webhook-id': 'evt_1' }, secret));
    await refused(unwrap(body, signed(secret), 'not-a-whsec'));
    await refused(unwrap(body, signed(secret, new Date(), 'evt_2'), secret));
    await refused(unwrap('not json', signed(secret, new Date(), 'evt_1', 'not json'), secret));
  });

  it('checks the timestamp against the clock it is given', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    await expect(unwrap(body, signed(secret, at), secret, { now: new Date(at.getTime() + 60_000) })).resolves.toEqual(event);
    await expect(unwrap(body, signed(secret, at), secret)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});

import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeWith, createSessionFor } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { makeStatementWorld } from '../../../test/support/statements.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

/**
 * The events the service really records, read back through `GET /v1/events`, against the `Event`
 * union of the OpenAPI document it serves: each must match exactly one variant, the one of its
 * type, whose `data.object` is the served object schema (which refuses unknown fields).
 */
describe.each(engines())('events as the OpenAPI document types them, on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('match the Event variant of their type, for every kind of object an event carries', async () => {
    const world = await makeStatementWorld(t);
    const key = world.client.testKey;
    await t.call(key, { method: 'POST', url: `/v1/connect/account_holders/${world.holderId}`, json: { name: 'Ada' } });
    const { session } = await createSessionFor(t, key, { permissions: ['balances'] });
    const [accountId] = await completeWith(t.ctx, session.client_secret, 'sandbox', { username: 'user_good', password: 'pass_good' });
    await t.call(key, { method: 'POST', url: `/v1/connect/accounts/${accountId}/disconnect` });
    const claim = await world.proveAddress();
    await world.completedStatement({ claim_ids: [claim.id], period: { open: 1_790_000_000, close: 1_792_000_000 }, timezone: 'UTC' });
    const request = await t.call(key, {
      method: 'POST',
      url: '/v1/verify/access_requests',
      json: { type: 'sharing', account_holder_id: world.holderId, permissions: ['balances'] },
    });
    await t.call(key, { method: 'POST', url: `/v1/verify/access_requests/${request.json().id}/cancel` });

    const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...document, $id: 'https://ownproof.invalid/openapi.json' });
    const validate = ajv.getSchema('https://ownproof.invalid/openapi.json#/components/schemas/Event');
    if (!validate) throw new Error('no Event schema');

    const events = (await t.call(key, { method: 'GET', url: '/v1/events?limit=100' })).json().data as { type: string }[];
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'account_holder.created',
        'account_holder.updated',
        'session.completed',
        'account.disconnected',
        'claim.created',
        'statement.completed',
        'access_request.canceled',
      ]),
    );
    for (const event of events) expect(validate(event) ? [] : validate.errors, event.type).toEqual([]);
    // The union tells the types apart: an account holder is no session.
    const created = events.find((e) => e.type === 'account_holder.created');
    expect(validate({ ...created, type: 'session.completed' })).toBe(false);
  }, 60_000);
});

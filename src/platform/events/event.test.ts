import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

describe.each(engines())('events API on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const createHolder = (json: unknown, key = client.testKey) => t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json });
  const listEvents = (query = '', key = client.testKey) => t.call(key, { method: 'GET', url: `/v1/events${query}` });

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient();
  });
  afterAll(() => t.close());

  it('records an event with the object as it was, in the shape documented', async () => {
    const holder = (await createHolder({ email: 'evt@example.com', name: 'Before' })).json();
    await t.call(client.testKey, { method: 'POST', url: `/v1/connect/account_holders/${holder.id}`, json: { name: 'After' } });
    const page = (await listEvents('?limit=2')).json();
    expect(page.data.map((e: { type: string }) => e.type)).toEqual(['account_holder.updated', 'account_holder.created']);
    const [updated, created] = page.data;
    expect(created).toEqual({
      id: expect.stringMatching(/^evt_/),
      object: 'event',
      type: 'account_holder.created',
      created_at: expect.any(Number),
      livemode: false,
      data: { object: holder },
    });
    // The event reads the clock after the holder is written, in the same request: the same second
    // or, when the request straddles a second, the next one.
    expect(created.created_at - holder.created_at).toBeGreaterThanOrEqual(0);
    expect(created.created_at - holder.created_at).toBeLessThanOrEqual(1);
    expect(updated.data.object.name).toBe('After');
    const fetched = await t.call(client.testKey, { method: 'GET', url: `/v1/events/${created.id}` });
    expect(fetched.json()).toEqual(created);
  });

  it('writes no event when the change fails', async () => {
    await createHolder({ email: 'a@example.com', external_ref: 'evt-dup' });
    const before = (await listEvents('?limit=100')).json().data.length;
    expect((await createHolder({ email: 'b@example.com', external_ref: 'evt-dup' })).statusCode).toBe(409);
    expect((await listEvents('?limit=100')).json().data.length).toBe(before);
  });

  it('enqueues exactly one webhook dispatch job per event, in the same transaction', async () => {
    const tenant = await t.newClient('Dispatch');
    await createHolder({ email: 'd@example.com' }, tenant.testKey);
    const [event] = (await listEvents('', tenant.testKey)).json().data;
    const jobs = await t.ctx.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', `webhooks.dispatch:${event.id}`).execute();
    expect(jobs).toHaveLength(1);
    expect(JSON.parse(jobs[0]!.payload)).toEqual({ event_id: event.id });
  });

  it('filters by exact type, by family and by creation time', async () => {
    const tenant = await t.newClient('Filters');
    const first = (await createHolder({ email: 'f1@example.com' }, tenant.testKey)).json();
    t.clock.advance(100);
    await t.call(tenant.testKey, { method: 'POST', url: `/v1/connect/account_holders/${first.id}`, json: { name: 'x' } });
    const types = async (query: string) => (await listEvents(query, tenant.testKey)).json().data.map((e: { type: string }) => e.type);
    expect(await types('?type=account_holder.created')).toEqual(['account_holder.created']);
    expect(await types('?type=account_holder.*')).toEqual(['account_holder.updated', 'account_holder.created']);
    expect(await types('?type=session.*')).toEqual([]);
    expect(await types(`?created[gte]=${first.created_at + 50}`)).toEqual(['account_holder.updated']);
    expect(await types(`?created[lte]=${first.created_at + 50}`)).toEqual(['account_holder.created']);
    // The update is 100 s later by the clock, and its second may be the 101st when the clock's second turned during the requests.
    expect(await types(`?created[gte]=${first.created_at}&created[lte]=${first.created_at + 101}`)).toHaveLength(2);
  });

  it('paginates newest first with cursors', async () => {
    const tenant = await t.newClient('Pages');
    for (let i = 0; i < 5; i++) await createHolder({ email: `p${i}@example.com` }, tenant.testKey);
    const all = (await listEvents('?limit=100', tenant.testKey)).json().data.map((e: { id: string }) => e.id);
    const first = (await listEvents('?limit=2', tenant.testKey)).json();
    const second = (await listEvents(`?limit=2&starting_after=${first.data[1].id}`, tenant.testKey)).json();
    expect([...first.data, ...second.data].map((e: { id: string }) => e.id)).toEqual(all.slice(0, 4));
    expect(second.has_more).toBe(true);
  });

  it("hides another client's and the other mode's events", async () => {
    const other = await t.newClient('Other');
    await createHolder({ email: 'mine@example.com' });
    const [mine] = (await listEvents()).json().data;
    expect((await t.call(other.testKey, { method: 'GET', url: `/v1/events/${mine.id}` })).statusCode).toBe(404);
    expect((await t.call(client.liveKey, { method: 'GET', url: `/v1/events/${mine.id}` })).statusCode).toBe(404);
    expect((await listEvents('', other.testKey)).json().data).toEqual([]);
  });

  it.each([
    ['?type=Session', 'type'],
    ['?type=session.completed.extra', 'type'],
    ['?created[gte]=yesterday', 'created[gte]'],
    ['?created[gte]=200&created[lte]=100', 'created[lte]'],
    ['?created[gt]=1', 'created[gt]'],
  ])('rejects %s naming %s', async (query, param) => {
    const res = await listEvents(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe(param);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';

/**
 * Every string a request carries must be text both engines store as sent: no NUL (PostgreSQL text
 * cannot hold it) and no unpaired UTF-16 surrogate (it has no UTF-8 form). The route-security suite
 * probes every operation the same way; these cases name the families the rule was written for.
 */
describe.each(engines())('text that cannot be stored, on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let holderId: string;
  const get = (url: string) => t.call(client.testKey, { method: 'GET', url });
  const post = (url: string, json: unknown) => t.call(client.testKey, { method: 'POST', url, json });
  const holderCount = async () => (await get('/v1/connect/account_holders?limit=100')).json().data.length as number;
  const expectRefused = (
    res: { statusCode: number; body: string; json(): { error: Record<string, unknown> } },
    param: string | undefined,
    named: string,
  ) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', ...(param === undefined ? {} : { param }) });
    if (param === undefined) expect(res.json().error).not.toHaveProperty('param');
    expect(res.json().error.message).toContain(`must not contain ${named}`);
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient();
    holderId = (await post('/v1/connect/account_holders', { email: 'ada@example.com', name: 'Ada' })).json().id;
  });
  afterAll(() => t?.close());

  it.each([
    ['a NUL character', 'a control character (U+0000) at character 4', 'Ada\u0000'],
    ['a lone high surrogate', 'an unpaired surrogate (U+D800) at character 2', 'A\ud800da'],
    ['a lone low surrogate', 'an unpaired surrogate (U+DC00) at character 4', 'Ada\udc00'],
    ['surrogates in the wrong order', 'an unpaired surrogate (U+DC00) at character 1', '\udc00\ud800'],
  ])('refuses an account holder name with %s, on create and on update, and stores nothing', async (_what, named, name) => {
    const before = await holderCount();
    expectRefused(await post('/v1/connect/account_holders', { email: 'grace@example.com', name }), 'name', named);
    expect(await holderCount()).toBe(before);
    expectRefused(await post(`/v1/connect/account_holders/${holderId}`, { name }), 'name', named);
    expect((await get(`/v1/connect/account_holders/${holderId}`)).json().name).toBe('Ada');
  });

  it('names the nested field: a metadata value by its key, a metadata key by the object that holds it', async () => {
    const before = await holderCount();
    expectRefused(
      await post('/v1/connect/account_holders', { email: 'g@example.com', metadata: { plan: 'gold\u0000' } }),
      'metadata[plan]',
      'a control character (U+0000) at character 5',
    );
    expectRefused(
      await post('/v1/connect/account_holders', { email: 'g@example.com', metadata: { 'pl\ud800an': 'gold' } }),
      'metadata',
      'an unpaired surrogate (U+D800) at character 3',
    );
    expect(await holderCount()).toBe(before);
  });

  it('refuses such text in ids sent in bodies (access requests, statements, the public receipt check)', async () => {
    expectRefused(
      await post('/v1/verify/access_requests', { type: 'sharing', account_holder_id: `${holderId}\u0000`, permissions: ['balances'] }),
      'account_holder_id',
      'a control character (U+0000)',
    );
    expectRefused(
      await post('/v1/verify/statements/generate', { account_holder_id: holderId, claim_ids: ['clm_a', 'clm_\u0000'] }),
      'claim_ids[1]',
      'a control character (U+0000) at character 5',
    );
    const check = await t.app.inject({
      method: 'POST',
      url: '/v1/verify/claims/verify',
      headers: { 'content-type': 'application/json' },
      payload: '{"receipt":"ey\\ud800"}',
    });
    expectRefused(check, 'receipt', 'an unpaired surrogate (U+D800) at character 3');
  });

  it.each([
    ['/v1/verify/claims?account_holder_id=ah_%00', 'account_holder_id'],
    ['/v1/verify/claims?starting_after=clm_%00', 'starting_after'],
    ['/v1/verify/access_requests?account_holder_id=ah_%00', 'account_holder_id'],
    ['/v1/verify/access_requests?ending_before=ar_%00', 'ending_before'],
    ['/v1/verify/statements?account_holder_id=ah_%00', 'account_holder_id'],
    ['/v1/verify/statements?starting_after=stmt_%00', 'starting_after'],
    ['/v1/usage?starting_after=ur_%00', 'starting_after'],
    ['/v1/connect/account_holders?ending_before=ah_%00', 'ending_before'],
  ])('refuses a NUL character in a query parameter: %s', async (url, param) => {
    expectRefused(await get(url), param, 'a control character (U+0000)');
  });

  it.each([
    ['/v1/connect/account_holders/ah_%00', 4],
    ['/v1/verify/claims/clm_%00', 5],
    ['/v1/verify/access_requests/ar_%00', 4],
    ['/v1/verify/statements/stmt_%00', 6],
    ['/v1/verify/statements/stmt_%00/document/pdf', 6],
  ])(
    'answers a NUL character in a path id with 400 parameter_invalid naming the id, like an id too long to name anything: %s',
    async (url, at) => {
      expectRefused(await get(url), 'id', `a control character (U+0000) at character ${at}`);
    },
  );

  it('answers a URL that names no route 404 route_not_found, NUL or not', async () => {
    const res = await get('/v1/no_such_thing/%00');
    expect([res.statusCode, res.json().error.code]).toEqual([404, 'route_not_found']);
  });

  it('takes characters beyond the Basic Multilingual Plane (a surrogate pair) and reads them back unchanged', async () => {
    const created = await post('/v1/connect/account_holders', { email: 'emoji@example.com', name: 'Ada 🦉', metadata: { 'k🦉': 'v🦉' } });
    expect(created.statusCode, created.body).toBe(200);
    const read = (await get(`/v1/connect/account_holders/${created.json().id}`)).json();
    expect([read.name, read.metadata]).toEqual(['Ada 🦉', { 'k🦉': 'v🦉' }]);
  });

  it('answers a page request carrying such text with a 400 page (forms and query strings of the page surfaces)', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'receipt=ey%00',
    });
    const query = await t.app.inject({ method: 'GET', url: '/verify?document_hash=%00' });
    for (const res of [form, query]) {
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<h1>Something was wrong with that request</h1>');
    }
  });
});

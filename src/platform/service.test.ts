import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/clock.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { testConfig } from '../../test/support/test-app.js';
import { createClient } from '../clients/client.service.js';
import { DOMAIN_MODULES } from '../main/modules.js';
import type { AppContext } from './context.js';
import { openSecretBox, type SecretBox } from './crypto/secret-box.js';
import { eventsOf } from './events/event-catalog.js';
import { defineJob } from './jobs/catalog.js';
import { defineCounter, defineGauge } from './metrics/metric.js';
import { defineModule, type AppModule } from './module.js';
import { composeService } from './service.js';
import { csrfField } from './web/form-values.js';
import { html } from './web/html.js';
import type { PageKit, PageSurface } from './web/page-surface.js';

declare module './context.js' {
  interface AppContext {
    /** The example module's context part (this test only). */
    notesGreeting?: string;
  }
}

const notesApi: FastifyPluginAsync = async (api) => {
  api.get(
    '/notes/:id',
    { schema: { tags: ['Notes'], operationId: 'retrieveNote', params: Type.Object({ id: Type.String() }) } },
    async (request) => ({
      id: (request.params as { id: string }).id,
      greeting: api.ctx.notesGreeting,
      client: request.scope.clientId,
    }),
  );
};

const notesPublic: FastifyPluginAsync = async (app) => {
  app.get('/.well-known/notes', { schema: { hide: true } }, async () => ({ public: true }));
};

const notesPages: PageSurface = {
  id: 'notes',
  baseUrl: (config) => `${config.publicBaseUrl}/notes`,
  surfaceName: 'Notes',
  footer: 'Notes footer <kept as text>',
  routes: async (app, { kit }: { kit: PageKit }) => {
    app.get('/', async (request, reply) =>
      kit.send(
        reply,
        {
          status: 200,
          title: 'All notes',
          body: html`<h1>Notes</h1><form method="post" action="${kit.prefix}/echo">${csrfField(reply.generateCsrf())}<button>Go</button></form>`,
          nav: [
            { label: 'All notes', href: `${kit.prefix}/`, current: true },
            { label: 'Settings', href: `${kit.prefix}/settings` },
          ],
          person: 'ada@example.com <Ada>',
        },
        { testMode: true },
      ),
    );
    app.post('/echo', { preHandler: app.csrfProtection }, async (_request, reply) =>
      kit.send(reply, { status: 200, title: 'Sent', body: html`<p>sent</p>` }),
    );
  },
};

const touchJob = defineJob({ type: 'notes.touch', payload: Type.Object({}), maxAttempts: 1, timeoutMs: 1000, run: async () => undefined });
const notesWritten = defineCounter({ name: 'ownproof_notes_written_total', help: 'Notes written, by colour.', labelNames: ['colour'] });
const notesStored = defineGauge({
  name: 'ownproof_notes_stored',
  help: 'Notes stored, read at each scrape.',
  labelNames: [],
  collect: async ({ db }) => [
    {
      labels: {},
      value: Number(
        (
          await db
            .selectFrom('clients')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    },
  ],
});

/** A made-up domain that contributes one of everything a module can. */
const notesModule = defineModule({
  name: 'notes',
  context: () => ({ notesGreeting: 'built by the module' }),
  apiRoutes: [notesApi],
  publicRoutes: [notesPublic],
  pages: [notesPages],
  jobs: [touchJob],
  metrics: [notesWritten, notesStored],
  openApiTags: [{ name: 'Notes', description: 'Example notes.' }],
  onServe: async (_ctx, { baseUrl }) => [`notes ready at ${baseUrl}/notes`],
});

describe('a module added to the module list', () => {
  const service = composeService([...DOMAIN_MODULES, notesModule]);
  let database: TestDatabase;
  let ctx: AppContext;
  let key: string;
  let clientId: string;
  let secretBox: SecretBox;
  const app = () => service.buildApp(ctx, { logger: false });

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    secretBox = await openSecretBox(database.handle.db, { current: Buffer.alloc(32, 7) }, new TestClock());
    ctx = service.createContext({ config: testConfig(), database: database.handle, clock: new TestClock(), secretBox });
    ({ testKey: key, clientId } = await createClient(ctx, { name: 'Notes client' }));
  });
  afterAll(() => database.destroy());

  it('adds its part of the context, unless the caller gave that part (a test seam)', () => {
    expect(ctx.notesGreeting).toBe('built by the module');
    const seamed = service.createContext({
      config: testConfig(),
      database: database.handle,
      clock: new TestClock(),
      secretBox,
      given: { notesGreeting: 'given by the test' },
    });
    expect(seamed.notesGreeting).toBe('given by the test');
  });

  it('serves its API routes inside /v1 behind authentication, and its public routes without', async () => {
    const served = await app();
    expect((await served.inject({ method: 'GET', url: '/v1/notes/n1' })).json().error.code).toBe('api_key_missing');
    const res = await served.inject({ method: 'GET', url: '/api/v1/notes/n1', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'n1', greeting: 'built by the module', client: clientId });
    expect(res.headers['ratelimit-limit']).toBeDefined();
    expect((await served.inject({ method: 'GET', url: '/.well-known/notes' })).json()).toEqual({ public: true });
    await served.close();
  });

  it('mounts its page surface in the page kit: layout slots, headers, its own CSRF cookie, HTML errors', async () => {
    const served = await app();
    const page = await served.inject({ method: 'GET', url: '/notes/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<span class="brand">ownproof<span class="surface-name">Notes</span></span>');
    expect(page.body).toContain('<span class="badge">Test mode</span>');
    expect(page.body).toContain('Signed in as <strong>ada@example.com &lt;Ada&gt;</strong>');
    expect(page.body).toContain('<nav class="site-nav" aria-label="Notes">');
    expect(page.body).toContain('<a href="/notes/" aria-current="page">All notes</a>');
    expect(page.body).toContain('<p>Notes footer &lt;kept as text&gt;</p>');
    expect(page.body).toMatch(/<link rel="stylesheet" href="\/notes\/assets\/web\.[0-9a-f]{12}\.css">/);
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toMatch(/^ownproof_notes_csrf=[^;]+; Path=\/notes; HttpOnly; SameSite=Lax$/);

    const forged = await served.inject({
      method: 'POST',
      url: '/notes/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0] },
      payload: '_csrf=forged',
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('Your request couldn’t be verified');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    const sent = await served.inject({
      method: 'POST',
      url: '/notes/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0] },
      payload: new URLSearchParams({ _csrf: token }).toString(),
    });
    expect(sent.statusCode).toBe(200);

    const missing = await served.inject({ method: 'GET', url: '/notes/nothing/here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('<h1>Page not found</h1>');
    // The other surfaces and the API keep their own answers.
    expect((await served.inject({ method: 'GET', url: '/connect/nonsense' })).body).toContain('This link isn’t valid');
    expect((await served.inject({ method: 'GET', url: '/v1/nothing' })).json().error.code).toBe('route_not_found');
    await served.close();
  });

  it('answers a path under its pages that the router cannot decode with its HTML not-found page', async () => {
    const served = await app();
    const res = await served.inject({ method: 'GET', url: '/notes/%E0%A4%A' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>Page not found</h1>');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['request-id']).toMatch(/^req_/);
    await served.close();
  });

  it('documents its operations under its OpenAPI tag', async () => {
    const served = await app();
    const spec = (await served.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(spec.tags.map((t: { name: string }) => t.name)).toContain('Notes');
    expect(spec.paths['/v1/notes/{id}'].get.operationId).toBe('retrieveNote');
    await served.close();
  });

  it('adds its jobs to the worker catalog and its lines to the start-up banner', async () => {
    expect(service.jobCatalog().types()).toEqual(expect.arrayContaining(['notes.touch', 'webhooks.deliver', 'connect.refresh_account']));
    expect(await service.onServe(ctx, { baseUrl: 'http://127.0.0.1:1' })).toContain('notes ready at http://127.0.0.1:1/notes');
  });

  it('makes its metrics in every context’s registry, read at scrape time when they collect', async () => {
    ctx.metrics.counter(notesWritten).inc({ colour: 'yellow' });
    const text = await ctx.metrics.registry.metrics();
    expect(text).toContain('# TYPE ownproof_notes_written_total counter\nownproof_notes_written_total{colour="yellow"} 1\n');
    // Read from the database (the clients table, standing in for notes): the one client of beforeAll.
    expect(text).toContain('\nownproof_notes_stored 1\n');
    const other = service.createContext({ config: testConfig(), database: database.handle, clock: new TestClock(), secretBox });
    // Each context counts in its own registry.
    expect(await other.metrics.registry.metrics()).not.toContain('ownproof_notes_written_total{colour="yellow"}');
    expect(() => ctx.metrics.counter(defineCounter({ name: 'ownproof_undeclared_total', help: 'x', labelNames: [] }))).toThrow(
      'metric ownproof_undeclared_total is not declared by any module',
    );
  });

  it('is refused when it repeats a module name or a metric name, or mounts pages where another surface is', async () => {
    expect(() => composeService([...DOMAIN_MODULES, notesModule, notesModule])).toThrow('module notes is listed twice');
    const twice: AppModule = {
      name: 'twice',
      metrics: [defineCounter({ name: 'ownproof_notes_written_total', help: 'again', labelNames: [] })],
    };
    expect(() =>
      composeService([...DOMAIN_MODULES, notesModule, twice]).createContext({
        config: testConfig(),
        database: database.handle,
        clock: new TestClock(),
        secretBox,
      }),
    ).toThrow('A metric with the name ownproof_notes_written_total has already been registered.');
    const clash: AppModule = { name: 'clash', pages: [{ ...notesPages, id: 'clash', baseUrl: (config) => config.connectBaseUrl }] };
    await expect(composeService([...DOMAIN_MODULES, clash]).buildApp(ctx, { logger: false })).rejects.toThrow(
      'two page surfaces are mounted at "/connect"',
    );
  });

  it('is refused when an event type is declared by no module, or by two', async () => {
    const withoutVerify = DOMAIN_MODULES.filter((m) => m.name !== 'verify');
    await expect(composeService(withoutVerify).buildApp(ctx, { logger: false })).rejects.toThrow(
      'event type claim.created is declared by no module',
    );
    const again: AppModule = { name: 'again', events: eventsOf(Type.Object({}, { $id: 'Again' }), { 'session.completed': 'Again.' }) };
    await expect(composeService([...DOMAIN_MODULES, again]).buildApp(ctx, { logger: false })).rejects.toThrow(
      'event type session.completed is declared by modules connect and again',
    );
  });
});

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../../../test/support/database.js';
import { captureStream, startTestApp, TEST_MASTER_KEY, type TestApp } from '../../../test/support/test-app.js';
import { unixSeconds } from '../clock.js';
import { platformModule } from '../platform.module.js';
import { createMailer } from './create-mailer.js';
import { renderEmail } from './email-layout.js';
import { MailError, type OutgoingMail } from './mailer.js';
import { insertOutboxMessage } from './outbox.repository.js';

function accessRequestMail(to: string, overrides: Partial<OutgoingMail> = {}): OutgoingMail {
  const { html, text } = renderEmail({
    preheader: 'Acme Lending asks to see your verified address.',
    heading: 'Acme Lending asks for access',
    paragraphs: ['Acme Lending would like to see the Bitcoin address you proved you control.'],
    action: { label: 'Review the request', url: 'https://ownproof.example/portal/requests/ar_123?from=mail' },
    footer: 'You get this e-mail because Acme Lending has your address.',
  });
  return { to, subject: 'Acme Lending asks for access', text, html, kind: 'access_request', ...overrides };
}

/** The outbox transport (no SMTP_URL) and the pages that read it, /dev/mail. */
describe.each(engines())('the mail outbox on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('stores a message sent without SMTP_URL, with the From of the configuration and the time of the clock', async () => {
    expect(t.ctx.mailer.transport).toBe('outbox');
    const mail = accessRequestMail('store@example.com');
    const { messageId } = await t.ctx.mailer.send(mail);
    expect(messageId).toMatch(/^msg_[0-9A-Za-z]{22}$/);
    const row = await t.ctx.db.selectFrom('mail_outbox').selectAll().where('id', '=', messageId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      to_address: 'store@example.com',
      from_address: 'ownproof <no-reply@[127.0.0.1]>',
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      kind: 'access_request',
    });
    expect(Math.abs(row.created_at - Math.floor(t.clock.now() / 1000))).toBeLessThanOrEqual(1);
  });

  it('refuses a message it could never send, storing nothing', async () => {
    const error = await t.ctx.mailer.send(accessRequestMail('refused@example.com, eve@example.com')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailError);
    expect(error).toMatchObject({ permanent: true, responseCode: undefined });
    const rows = await t.ctx.db.selectFrom('mail_outbox').select('id').where('to_address', 'like', 'refused@%').execute();
    expect(rows).toEqual([]);
  });

  it('lists messages newest first at /dev/mail, each linking to its page', async () => {
    const first = await t.ctx.mailer.send(accessRequestMail('list@example.com', { subject: 'First <b>message</b>' }));
    const second = await t.ctx.mailer.send(accessRequestMail('list@example.com', { subject: 'Second message', kind: 'portal_sign_in' }));
    const res = await t.app.inject({ method: 'GET', url: '/dev/mail' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'self'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toContain('<h1>Outbox</h1>');
    expect(res.body).toContain(
      `<a class="mail-item" href="/dev/mail/${second.messageId}"><span class="mail-subject">Second message</span><span class="mail-meta">To list@example.com · portal_sign_in · <time datetime="`,
    );
    expect(res.body).toContain('First &lt;b&gt;message&lt;/b&gt;');
    expect(res.body.indexOf(second.messageId)).toBeLessThan(res.body.indexOf(first.messageId));
    expect(res.body).not.toContain('<script');
  });

  it('shows one message: headers, its links, the HTML part in a sandboxed frame, the text part', async () => {
    const mail = accessRequestMail('show@example.com');
    const { messageId } = await t.ctx.mailer.send(mail);
    const res = await t.app.inject({ method: 'GET', url: `/dev/mail/${messageId}` });
    expect(res.statusCode).toBe(200);
    // The page's own policy, plus its frame of our own origin.
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; frame-src 'self'",
    );
    expect(res.body).toContain('<h1>Acme Lending asks for access</h1>');
    expect(res.body).toContain('<dt>To</dt><dd>show@example.com</dd>');
    expect(res.body).toContain('<dt>From</dt><dd>ownproof &lt;no-reply@[127.0.0.1]&gt;</dd>');
    expect(res.body).toContain('<dt>Kind</dt><dd>access_request</dd>');
    expect(res.body).toContain(
      '<li><a href="https://ownproof.example/portal/requests/ar_123?from=mail">https://ownproof.example/portal/requests/ar_123?from=mail</a></li>',
    );
    expect(res.body).toContain(
      `<iframe class="mail-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" src="/dev/mail/${messageId}/html" title="HTML version of the message"></iframe>`,
    );
    expect(res.body).toContain('<pre class="mail-text code-block">Acme Lending asks for access\n\nAcme Lending would like');
  });

  it('serves the HTML part by itself under a policy that allows no script and no request (only links opened in a new tab), framed by our pages only', async () => {
    const mail = accessRequestMail('frame@example.com');
    const { messageId } = await t.ctx.mailer.send(mail);
    const res = await t.app.inject({ method: 'GET', url: `/dev/mail/${messageId}/html` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
    );
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe(mail.html);
  });

  it('gives a message as JSON by id, and the newest one to an address', async () => {
    const older = await t.ctx.mailer.send(accessRequestMail('json@example.com', { subject: 'Older' }));
    const newer = await t.ctx.mailer.send(accessRequestMail('json@example.com', { subject: 'Newer', kind: 'portal_sign_in' }));
    await t.ctx.mailer.send(accessRequestMail('someone-else@example.com'));

    const byId = await t.app.inject({ method: 'GET', url: `/dev/mail/${older.messageId}.json` });
    expect(byId.statusCode).toBe(200);
    expect(byId.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(byId.json()).toMatchObject({
      object: 'mail',
      id: older.messageId,
      to: 'json@example.com',
      subject: 'Older',
      kind: 'access_request',
    });

    const latest = await t.app.inject({ method: 'GET', url: '/dev/mail/latest.json?to=json@example.com' });
    expect(latest.json()).toMatchObject({
      id: newer.messageId,
      subject: 'Newer',
      kind: 'portal_sign_in',
      from: 'ownproof <no-reply@[127.0.0.1]>',
      links: ['https://ownproof.example/portal/requests/ar_123?from=mail'],
    });
    expect(latest.json().text).toContain('Review the request:\nhttps://ownproof.example/portal/requests/ar_123?from=mail');
    expect(latest.json().html).toContain('<!doctype html>');
  });

  it('answers 404 for a message that does not exist: the HTML page, or JSON for .json', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/dev/mail/msg_doesNotExist0000000000' });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('<h1>Page not found</h1>');
    expect((await t.app.inject({ method: 'GET', url: '/dev/mail/msg_doesNotExist0000000000/html' })).statusCode).toBe(404);
    const json = await t.app.inject({ method: 'GET', url: '/dev/mail/msg_doesNotExist0000000000.json' });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toEqual({ error: { code: 'resource_missing', message: 'No such message in the outbox.' } });
    const latest = await t.app.inject({ method: 'GET', url: '/dev/mail/latest.json?to=nobody@example.com' });
    expect(latest.statusCode).toBe(404);
  });

  it('answers another Host than loopback names and the public host with its page-not-found, showing nothing of the outbox (DNS rebinding)', async () => {
    const { messageId } = await t.ctx.mailer.send(accessRequestMail('rebind@example.com'));
    const paths = [
      '/dev/mail',
      `/dev/mail/${messageId}`,
      `/dev/mail/${messageId}/html`,
      `/dev/mail/${messageId}.json`,
      '/dev/mail/latest.json?to=rebind@example.com',
    ];
    for (const host of [
      'evil.example',
      'attacker.test:3000',
      'localhost.attacker.test',
      '127.0.0.1.attacker.test:8080',
      'evil.example:8080@localhost',
    ]) {
      for (const url of paths) {
        const res = await t.app.inject({ method: 'GET', url, headers: { host } });
        expect(res.statusCode, `${host} ${url}`).toBe(404);
        expect(res.headers['content-type'], `${host} ${url}`).toBe('text/html; charset=utf-8');
        expect(res.body, `${host} ${url}`).toContain('<h1>Page not found</h1>');
        expect(res.body, `${host} ${url}`).not.toContain('rebind@example.com');
      }
    }
    // PUBLIC_BASE_URL is http://127.0.0.1:8080 here; any port of a loopback name is this machine too.
    for (const host of ['127.0.0.1:8080', '127.0.0.1', 'localhost', 'LOCALHOST:3000', '127.3.4.5:80', '[::1]:8080']) {
      const res = await t.app.inject({ method: 'GET', url: `/dev/mail/${messageId}.json`, headers: { host } });
      expect(res.statusCode, host).toBe(200);
      expect(res.json().to, host).toBe('rebind@example.com');
    }
  });

  it('answers at the host of PUBLIC_BASE_URL when that is a name', async () => {
    const local = await startTestApp(engine, { config: { PUBLIC_BASE_URL: 'https://mail-dev.ownproof.example:8443' } });
    try {
      await local.ctx.mailer.send(accessRequestMail('named@example.com'));
      const at = (host: string) => local.app.inject({ method: 'GET', url: '/dev/mail/latest.json', headers: { host } });
      expect((await at('mail-dev.ownproof.example:8443')).json().to).toBe('named@example.com');
      expect((await at('MAIL-DEV.ownproof.example')).statusCode).toBe(200);
      expect((await at('localhost:8080')).statusCode).toBe(200);
      expect((await at('ownproof.example')).statusCode).toBe(404);
      expect((await at('evil.mail-dev.ownproof.example')).statusCode).toBe(404);
    } finally {
      await local.close();
    }
  });

  it('shows a message for 24 hours, then nowhere at once; the next message sent deletes it', async () => {
    const local = await startTestApp(engine);
    try {
      const old = await local.ctx.mailer.send(accessRequestMail('old@example.com'));
      const urls = [
        `/dev/mail/${old.messageId}`,
        `/dev/mail/${old.messageId}/html`,
        `/dev/mail/${old.messageId}.json`,
        '/dev/mail/latest.json?to=old@example.com',
      ];
      // The test clock is real time plus an offset: a margin of a minute keeps a second boundary out of it.
      local.clock.advance(24 * 3600 - 60);
      for (const url of urls) expect((await local.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
      expect((await local.app.inject({ method: 'GET', url: '/dev/mail' })).body).toContain(old.messageId);

      local.clock.advance(60);
      for (const url of urls) expect((await local.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      const list = await local.app.inject({ method: 'GET', url: '/dev/mail' });
      expect(list.body).not.toContain(old.messageId);
      expect(list.body).toContain('No messages yet.');
      expect((await local.app.inject({ method: 'GET', url: '/dev/mail/latest.json' })).statusCode).toBe(404);

      const fresh = await local.ctx.mailer.send(accessRequestMail('new@example.com'));
      const ids = (await local.ctx.db.selectFrom('mail_outbox').select('id').execute()).map((row) => row.id);
      expect(ids).toEqual([fresh.messageId]);
    } finally {
      await local.close();
    }
  });

  it('pages through more than 50 messages with an "Older messages" link', async () => {
    const local = await startTestApp(engine);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 51; i++) ids.push((await local.ctx.mailer.send(accessRequestMail(`page${i}@example.com`))).messageId);
      const first = await local.app.inject({ method: 'GET', url: '/dev/mail' });
      expect(first.body.match(/class="mail-item"/g)).toHaveLength(50);
      expect(first.body).not.toContain(ids[0]);
      expect(first.body).toContain(`<a class="mail-more" href="/dev/mail?before=${ids[1]}">Older messages</a>`);
      const older = await local.app.inject({ method: 'GET', url: `/dev/mail?before=${ids[1]}` });
      expect(older.body.match(/class="mail-item"/g)).toHaveLength(1);
      expect(older.body).toContain(ids[0]);
      expect(older.body).not.toContain('Older messages');
    } finally {
      await local.close();
    }
  });
});

describe.each(engines())('mail in production without SMTP_URL on %s', (engine) => {
  let t: TestApp;
  /** A message as an earlier version kept it in production: a row of the outbox table. */
  const leftBehind = async (to: string) => {
    const id = `msg_left${Math.random().toString(36).slice(2, 12)}`;
    const mail = accessRequestMail(to);
    await insertOutboxMessage(t.ctx.db, {
      id,
      to_address: to,
      from_address: 'ownproof <no-reply@example.com>',
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      kind: mail.kind,
      created_at: unixSeconds(t.clock),
    });
    return id;
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { config: { NODE_ENV: 'production', MASTER_KEY: TEST_MASTER_KEY } });
  });
  afterAll(() => t.close());

  it('sends and stores nothing: every message is refused with a permanent MailError naming SMTP_URL, and logged without the recipient', async () => {
    expect(t.ctx.mailer.transport).toBe('none');
    const { stream, lines } = captureStream();
    const mailer = createMailer(t.ctx.config, t.ctx, { log: pino({ level: 'info' }, stream) });
    const error = await mailer.send(accessRequestMail('prod@example.com')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailError);
    expect(error).toMatchObject({ permanent: true, responseCode: undefined, message: expect.stringMatching(/SMTP_URL/) });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 50, msg: 'mail not sent', transport: 'none', kind: 'access_request', permanent: true }),
    ]);
    expect(lines.join('')).not.toContain('prod@example.com');
    await expect(t.ctx.mailer.send(accessRequestMail('prod@example.com'))).rejects.toThrow(MailError);
    expect(await t.ctx.db.selectFrom('mail_outbox').select('id').execute()).toEqual([]);
  });

  it('serves no /dev/mail: everything under it is not found', async () => {
    const messageId = await leftBehind('prod@example.com');
    for (const url of [
      '/dev/mail',
      '/dev/mail/',
      `/dev/mail/${messageId}`,
      `/dev/mail/${messageId}/html`,
      `/dev/mail/${messageId}.json`,
      '/dev/mail/latest.json?to=prod@example.com',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      // Nothing of the message: the API's JSON 404 (the surface is not mounted), which names only the URL asked for.
      expect(res.json().error.code, url).toBe('route_not_found');
      expect(res.body, url).not.toContain('prod@example.com');
    }
  });

  it('deletes at start-up what an earlier version kept in the outbox, and warns in the banner that no mail goes out', async () => {
    await leftBehind('earlier@example.com');
    const banner = (await platformModule.onServe?.(t.ctx, { baseUrl: 'https://ownproof.example' })) ?? [];
    expect(await t.ctx.db.selectFrom('mail_outbox').select('id').execute()).toEqual([]);
    expect(banner.join('\n')).toMatch(
      /^ {2}Mail: +WARNING: no SMTP_URL, so this production server sends no e-mail: access requests are refused \(503 mail_unavailable\) and portal sign-in links are not sent$/m,
    );
    expect(banner.join('\n')).toMatch(
      /^ {2}Mail: +deleted \d+ messages? an earlier version kept in the outbox \(production keeps none\)$/m,
    );
  });
});

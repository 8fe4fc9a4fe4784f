import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/support/clock.js';
import { freePort } from '../../../test/support/free-port.js';
import { parseMail, startSmtpSink, type SmtpSink } from '../../../test/support/smtp-sink.js';
import { captureStream, startTestApp, testConfig } from '../../../test/support/test-app.js';
import type { Db } from '../db/database.js';
import { Metrics } from '../metrics/metrics.js';
import { createMailer } from './create-mailer.js';
import { mailMessages } from './mail.metrics.js';
import { renderEmail } from './email-layout.js';
import { MailError, type Mailer, type OutgoingMail } from './mailer.js';

const PASSWORD = 'hunter2-Sm7p!pa55';
const LOGIN = { user: 'ownproof-mailer', pass: PASSWORD };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function sink(options: Parameters<typeof startSmtpSink>[0] = {}): Promise<SmtpSink> {
  const started = await startSmtpSink(options);
  closers.push(() => started.close());
  return started;
}

/** A mailer of SMTP_URL `url` that logs into `lines` at trace level and counts into `metrics` (SMTP never touches the database). */
function smtpMailer(url: string, env: Record<string, string> = {}): { mailer: Mailer; lines: string[]; metrics: Metrics } {
  const { stream, lines } = captureStream();
  const deps = { db: null as unknown as Db, clock: new TestClock() };
  const metrics = new Metrics([mailMessages], { ...deps, logLevel: 'silent' });
  const mailer = createMailer(testConfig({ SMTP_URL: url, ...env }), { ...deps, metrics }, { log: pino({ level: 'trace' }, stream) });
  closers.push(() => mailer.close());
  return { mailer, lines, metrics };
}

function signInMail(to = 'ada@example.com'): OutgoingMail {
  const { html, text } = renderEmail({
    preheader: 'Your sign-in link, valid for 15 minutes.',
    heading: 'Sign in to your portal',
    paragraphs: ['Use the button below to sign in. The link works once.', 'Café “Lovelace” asked us to send it.'],
    action: { label: 'Sign in', url: 'https://ownproof.example/portal/sign-in/pl_abc123' },
    details: [{ label: 'Requested by', value: 'Acme Lending' }],
    footer: 'You get this e-mail because someone entered your address at ownproof.example.',
  });
  return { to, subject: 'Your sign-in link für ownproof', text, html, kind: 'portal_sign_in' };
}

async function sendError(mailer: Mailer, mail: OutgoingMail = signInMail()): Promise<MailError> {
  const error = await mailer.send(mail).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MailError);
  return error as MailError;
}

describe('sending through SMTP', () => {
  it('delivers a message sent through ctx.mailer: envelope, headers, text and HTML parts', async () => {
    const server = await sink();
    const t = await startTestApp('sqlite', { config: { SMTP_URL: server.url(), MAIL_FROM: 'Ownproof Access <access@ownproof.example>' } });
    closers.push(() => t.close());
    expect(t.ctx.mailer.transport).toBe('smtp');

    const mail = signInMail();
    const { messageId } = await t.ctx.mailer.send(mail);

    expect(server.received).toHaveLength(1);
    const [received] = server.received;
    expect(received?.envelope).toEqual({ from: 'access@ownproof.example', to: ['ada@example.com'] });
    const parsed = parseMail(received?.raw ?? '');
    expect(parsed.headers.get('from')).toBe('Ownproof Access <access@ownproof.example>');
    expect(parsed.headers.get('to')).toBe('ada@example.com');
    expect(parsed.headers.get('subject')).toBe(mail.subject);
    expect(parsed.headers.get('message-id')).toBe(messageId);
    expect(messageId).toMatch(/^<msg_[0-9A-Za-z]{22}@ownproof\.example>$/);
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(parsed.headers.get('content-type')).toMatch(/^multipart\/alternative;/);
    expect(parsed.text).toBe(mail.text);
    expect(parsed.html).toBe(mail.html);
    expect(parsed.text).toContain('Sign in:\nhttps://ownproof.example/portal/sign-in/pl_abc123');
  });

  it('sends from ownproof <no-reply@…> at the host of PUBLIC_BASE_URL by default', async () => {
    const server = await sink();
    const { mailer } = smtpMailer(server.url(), { PUBLIC_BASE_URL: 'https://api.ownproof.example' });
    await mailer.send(signInMail());
    expect(server.received[0]?.envelope.from).toBe('no-reply@api.ownproof.example');
    expect(parseMail(server.received[0]?.raw ?? '').headers.get('from')).toBe('ownproof <no-reply@api.ownproof.example>');
  });

  it('logs one line per message with its kind and message id, never the recipient or the body', async () => {
    const server = await sink();
    const { mailer, lines } = smtpMailer(server.url());
    const { messageId } = await mailer.send(signInMail());
    const sent = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'mail sent');
    expect(sent).toEqual([
      expect.objectContaining({ component: 'mail', transport: 'smtp', kind: 'portal_sign_in', message_id: messageId }),
    ]);
    expect(lines.join('')).not.toContain('ada@example.com');
    expect(lines.join('')).not.toContain('pl_abc123');
  });

  it('turns a 550 refusal into a permanent MailError with the code', async () => {
    const server = await sink({
      refuseRecipient: { code: 550, text: '5.1.1 <nobody@example.com>: Recipient address rejected: User unknown' },
    });
    const { mailer, lines } = smtpMailer(server.url());
    const error = await sendError(mailer, signInMail('nobody@example.com'));
    expect(error).toMatchObject({ permanent: true, responseCode: 550 });
    expect(error.message).toBe(
      'The mail server refused the recipient: 550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
    );
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'mail not sent');
    expect(logged).toMatchObject({ level: 50, kind: 'portal_sign_in', permanent: true, response_code: 550, command: 'RCPT TO' });
    // The caller knows whom it wrote to; the log keeps the refusal without the address.
    expect(logged.reason).toBe('The mail server refused the recipient: 550 5.1.1 <[recipient]>: Recipient address rejected: User unknown');
    expect(lines.join('')).not.toContain('nobody@example.com');
  });

  it('turns a 4xx answer into a MailError to retry, with the code', async () => {
    const server = await sink({ refuseRecipient: { code: 451, text: '4.7.1 Greylisted, try again in 5 minutes' } });
    const { mailer } = smtpMailer(server.url());
    const error = await sendError(mailer);
    expect(error).toMatchObject({ permanent: false, responseCode: 451 });
    expect(error.message).toMatch(/^The mail server refused the recipient: 451 4\.7\.1 Greylisted/);
  });

  it('gives a MailError to retry, at once, when nothing listens on the port', async () => {
    const { mailer } = smtpMailer(`smtp://127.0.0.1:${await freePort()}`);
    const started = Date.now();
    const error = await sendError(mailer);
    expect(error).toMatchObject({
      permanent: false,
      responseCode: undefined,
      message: 'Could not connect to the mail server: connection refused.',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives up within SMTP_TIMEOUT_SECONDS on a server that accepts the connection and never greets', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const { mailer } = smtpMailer(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, { SMTP_TIMEOUT_SECONDS: '1' });
    const started = Date.now();
    const error = await sendError(mailer);
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ permanent: false, responseCode: undefined, message: 'The mail server did not greet within 1 s.' });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
  });

  it('sends the same message once a server that was down is up', async () => {
    const port = await freePort();
    const { mailer } = smtpMailer(`smtp://127.0.0.1:${port}`);
    const mail = signInMail();
    expect((await sendError(mailer, mail)).permanent).toBe(false);
    const server = await sink({ port });
    await mailer.send(mail);
    expect(server.received).toHaveLength(1);
    expect(parseMail(server.received[0]?.raw ?? '').text).toBe(mail.text);
  });

  it('logs in with the user and password of SMTP_URL', async () => {
    const server = await sink({ login: LOGIN });
    const { mailer } = smtpMailer(server.url(LOGIN));
    await mailer.send(signInMail());
    expect(server.received).toHaveLength(1);
  });

  it('never puts the SMTP password in an error message or a log line', async () => {
    const server = await sink({ login: LOGIN });
    const wrong = { user: LOGIN.user, pass: `${PASSWORD}-wrong` };
    const refused = smtpMailer(server.url(wrong));
    const loginError = await sendError(refused.mailer);
    expect(loginError).toMatchObject({ permanent: true, responseCode: 535 });
    expect(loginError.message).toMatch(/^The mail server refused the login: 535 /);

    const down = smtpMailer(`smtp://${LOGIN.user}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${await freePort()}`);
    const downError = await sendError(down.mailer);

    for (const text of [
      loginError.message,
      String(loginError.stack),
      downError.message,
      String(downError.stack),
      ...refused.lines,
      ...down.lines,
    ]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
      expect(text).not.toContain(Buffer.from(PASSWORD).toString('base64'));
    }
    expect(refused.lines.join('')).toContain('mail not sent');
    expect(down.lines.join('')).toContain('mail not sent');
  });

  it('refuses to send in plain text when SMTP_URL says tls=required and the server offers no STARTTLS', async () => {
    const server = await sink();
    const { mailer } = smtpMailer(`${server.url()}?tls=required`);
    const error = await sendError(mailer);
    expect(error.message).toMatch(/^The mail server refused to start TLS: 5\d\d /);
    expect(server.received).toHaveLength(0);
  });

  it('counts every message by kind, transport and outcome: sent, failed_transient, failed_permanent', async () => {
    const server = await sink({ refuseRecipient: { code: 550, text: '5.1.1 User unknown', only: ['nobody@example.com'] } });
    const { mailer, metrics } = smtpMailer(server.url());
    await sendError(mailer, signInMail('nobody@example.com'));
    await sendError(mailer, { ...signInMail(), subject: 'Hi\r\nBcc: eve@example.com', kind: 'not a kind\nat all' });
    await mailer.send(signInMail());
    const { mailer: unreachable, metrics: unreachableMetrics } = smtpMailer(`smtp://127.0.0.1:${await freePort()}`);
    await sendError(unreachable);
    const values = async (m: Metrics) => (await m.counter(mailMessages).get()).values.map((v) => [v.labels, v.value]);
    expect(await values(metrics)).toEqual([
      [{ kind: 'portal_sign_in', transport: 'smtp', outcome: 'failed_permanent' }, 1],
      // A message refused before sending carries any text as its kind: it is not a label.
      [{ kind: 'invalid_message', transport: 'smtp', outcome: 'failed_permanent' }, 1],
      [{ kind: 'portal_sign_in', transport: 'smtp', outcome: 'sent' }, 1],
    ]);
    expect(await values(unreachableMetrics)).toEqual([[{ kind: 'portal_sign_in', transport: 'smtp', outcome: 'failed_transient' }, 1]]);
  });

  it('refuses a message to more than one address, or with a line break in the subject, before sending anything', async () => {
    const server = await sink();
    const { mailer } = smtpMailer(server.url());
    const list = await sendError(mailer, { ...signInMail(), to: 'ada@example.com, eve@example.com' });
    expect(list).toMatchObject({ permanent: true, message: 'The message was not sent: the recipient is not one plain e-mail address.' });
    const header = await sendError(mailer, { ...signInMail(), subject: 'Hi\r\nBcc: eve@example.com' });
    expect(header).toMatchObject({ permanent: true, message: 'The message was not sent: the subject has a line break.' });
    expect(server.received).toHaveLength(0);
  });
});

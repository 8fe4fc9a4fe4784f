import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/config.js';
import { formatMailbox, isMailAddress, parseMailbox } from './address.js';

function configError(env: Record<string, string>): ConfigError {
  let error: unknown;
  try {
    loadConfig(env);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('mail configuration', () => {
  it('keeps mail in the outbox without SMTP_URL, from ownproof <no-reply@…> at the public host', () => {
    expect(loadConfig({}).mail).toEqual({
      smtp: undefined,
      from: { name: 'ownproof', address: 'no-reply@[127.0.0.1]' },
      timeoutMs: 10_000,
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com:8443/base' }).mail.from).toEqual({
      name: 'ownproof',
      address: 'no-reply@api.example.com',
    });
    expect(loadConfig({ HOST: '::1' }).mail.from.address).toBe('no-reply@[IPv6:::1]');
  });

  it('reads smtps:// with a percent-encoded login, and smtp:// to a remote host with STARTTLS required', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://mailer%40example.com:p%3Ass%2Fw@smtp.example.com' }).mail.smtp).toEqual({
      host: 'smtp.example.com',
      port: 465,
      implicitTls: true,
      starttls: 'required',
      auth: { user: 'mailer@example.com' },
    });
    expect(loadConfig({ SMTP_URL: 'smtps://u:p%3Ass%2Fw@smtp.example.com' }).mail.smtp?.auth?.pass).toBe('p:ss/w');
    expect(loadConfig({ SMTP_URL: 'smtp://smtp.example.com' }).mail.smtp).toMatchObject({
      port: 587,
      implicitTls: false,
      starttls: 'required',
      auth: undefined,
    });
    expect(loadConfig({ SMTP_URL: 'smtp://relay.internal:25?tls=optional' }).mail.smtp).toMatchObject({ port: 25, starttls: 'optional' });
  });

  it('allows plain text without asking only to loopback hosts', () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.0.0.53']) {
      expect(loadConfig({ SMTP_URL: `smtp://${host}:1025` }).mail.smtp?.starttls, host).toBe('optional');
    }
    expect(loadConfig({ SMTP_URL: 'smtp://[::1]:1025' }).mail.smtp?.host).toBe('::1');
    expect(loadConfig({ SMTP_URL: 'smtp://10.0.0.5:25' }).mail.smtp?.starttls).toBe('required');
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:1025?tls=required' }).mail.smtp?.starttls).toBe('required');
  });

  it('never shows the SMTP password when the configuration is printed or serialised', () => {
    const config = loadConfig({ SMTP_URL: 'smtps://mailer:hunter2-secret@smtp.example.com' });
    expect(config.mail.smtp?.auth?.pass).toBe('hunter2-secret');
    expect(JSON.stringify(config)).not.toContain('hunter2');
    expect(inspect(config, { depth: 10 })).not.toContain('hunter2');
  });

  it('takes MAIL_FROM as an address or Name <address>, and SMTP_TIMEOUT_SECONDS', () => {
    expect(loadConfig({ MAIL_FROM: 'access@example.com' }).mail.from).toEqual({ name: undefined, address: 'access@example.com' });
    expect(loadConfig({ MAIL_FROM: 'Acme Access <access@example.com>' }).mail.from).toEqual({
      name: 'Acme Access',
      address: 'access@example.com',
    });
    expect(loadConfig({ MAIL_FROM: '"Acme, Inc." <access@example.com>' }).mail.from).toEqual({
      name: 'Acme, Inc.',
      address: 'access@example.com',
    });
    expect(loadConfig({ SMTP_TIMEOUT_SECONDS: '3' }).mail.timeoutMs).toBe(3000);
  });

  it.each([
    ['SMTP_URL', 'smtp.example.com', /SMTP_URL must be a URL/],
    ['SMTP_URL', 'https://user:hunter2@smtp.example.com', /SMTP_URL must start with smtp:\/\/ or smtps:\/\//],
    ['SMTP_URL', 'smtp://user:hunter2@smtp.example.com/path', /SMTP_URL must not have a path/],
    ['SMTP_URL', 'smtp://user:hunter2@smtp.example.com?tls=never', /SMTP_URL tls must be required or optional/],
    ['SMTP_URL', 'smtp://user:hunter2@smtp.example.com?hunter2=1', /SMTP_URL takes one query parameter only/],
    ['SMTP_URL', 'smtps://user:hunter2@smtp.example.com?tls=optional', /SMTP_URL takes \?tls only with smtp:\/\//],
    ['SMTP_URL', 'smtp://hunter2@smtp.example.com', /SMTP_URL must have both a user and a password, or neither/],
    ['SMTP_URL', 'smtp://user:hunter2%E0%A4%A@smtp.example.com', /SMTP_URL has a user or password that is not valid percent-encoding/],
    ['MAIL_FROM', 'not an address', /MAIL_FROM must be an e-mail address or "Name <address>"/],
    ['MAIL_FROM', 'a@example.com, b@example.com', /MAIL_FROM must be/],
    ['SMTP_TIMEOUT_SECONDS', '0', /SMTP_TIMEOUT_SECONDS must be a whole number from 1 to 300/],
  ])('refuses %s=%s with one line naming it, without the value of SMTP_URL', (name, value, message) => {
    const error = configError({ [name]: value });
    expect(error.variable).toBe(name);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('e-mail addresses', () => {
  it.each(['ada@example.com', 'a.b+tag@sub.example.co.uk', 'no-reply@localhost', 'x@[192.0.2.1]', 'x@[IPv6:2001:db8::1]'])(
    'accepts %s',
    (address) => {
      expect(isMailAddress(address)).toBe(true);
    },
  );

  it.each([
    '',
    'ada',
    '@example.com',
    'ada@',
    'a@b@c',
    'ada@example.com, eve@example.com',
    'Ada <ada@example.com>',
    'ada@exa mple.com',
    'ada@example.com\r\nBcc: eve@x.com',
    '.ada@example.com',
    'ada@[999.1.1.1]',
  ])('refuses %j as one plain address', (address) => {
    expect(isMailAddress(address)).toBe(false);
  });

  it('reads and writes a mailbox with a display name, refusing line breaks in it', () => {
    expect(parseMailbox('Ada Lovelace <ada@example.com>')).toEqual({ name: 'Ada Lovelace', address: 'ada@example.com' });
    expect(parseMailbox('"Ada\r\nBcc: eve@example.com" <ada@example.com>')).toBeUndefined();
    expect(formatMailbox({ name: 'Acme, Inc.', address: 'a@example.com' })).toBe('"Acme, Inc." <a@example.com>');
    expect(formatMailbox({ name: 'ownproof', address: 'a@example.com' })).toBe('ownproof <a@example.com>');
    expect(formatMailbox({ name: undefined, address: 'a@example.com' })).toBe('a@example.com');
  });
});

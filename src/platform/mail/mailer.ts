import { isMailAddress } from './address.js';

/** One e-mail to one person. Build `text` and `html` with `renderEmail` (email-layout.ts). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What kind of mail this is ('access_request', 'portal_sign_in'): shown in /dev/mail and in log lines, never the body. */
  kind: string;
}

/**
 * How the service sends e-mail (`ctx.mailer`). Built once per process from the configuration
 * (`createMailer`), closed with the runtime.
 */
export interface Mailer {
  /**
   * 'smtp' when SMTP_URL is set. Without it: 'outbox' outside production (messages are stored in
   * the database for 24 hours, readable at /dev/mail), 'none' in production (every message is
   * refused: see `noMailError`).
   */
  readonly transport: 'smtp' | 'outbox' | 'none';
  /** Sends one message; resolves with the SMTP server's (or the outbox's) message id. Rejects with MailError. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

/**
 * A message not sent. `permanent`: the server refused it for good (SMTP 5xx: unknown mailbox,
 * policy) — retrying cannot help; otherwise (connection refused/reset, timeout, greeting failure,
 * 4xx) retry later. `message` is one plain line safe for an API response (no stack, no
 * credentials, no SMTP password); the library's own words go to the log only.
 */
export class MailError extends Error {
  readonly permanent: boolean;
  /** The SMTP reply code that refused the message (550, 451, 535…), when a server answered. */
  readonly responseCode: number | undefined;

  constructor(message: string, options: { permanent: boolean; responseCode?: number | undefined }) {
    super(message);
    this.name = 'MailError';
    this.permanent = options.permanent;
    this.responseCode = options.responseCode;
  }
}

/** `kind` goes into log lines and the outbox: a short snake_case word, nothing a caller could smuggle text through. */
const KIND = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Why a message must not be sent as it is, or undefined. These are bugs of the calling code (the
 * message can never go out as written), so the mailer refuses them as permanent failures before
 * any transport sees them.
 */
export function outgoingMailProblem(mail: OutgoingMail): string | undefined {
  if (!isMailAddress(mail.to)) return 'the recipient is not one plain e-mail address';
  if (mail.subject.trim() === '') return 'the subject is empty';
  if (/[\r\n]/.test(mail.subject)) return 'the subject has a line break';
  if (mail.subject.length > 200) return 'the subject is longer than 200 characters';
  if (mail.text.trim() === '' || mail.html.trim() === '') return 'the message needs both a text and an HTML body';
  if (!KIND.test(mail.kind)) return 'the kind must be a short snake_case word';
  return undefined;
}

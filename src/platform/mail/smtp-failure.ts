import { redactSecrets } from '../http/logging.js';
import { tlsFailure } from '../webhooks/tls-failure.js';
import { MailError } from './mailer.js';
import { TransportFailure } from './transport.js';

/** The fields of nodemailer's errors that tell what happened (`_formatError` in its smtp-connection). */
interface NodemailerError {
  code?: string;
  /** The system error's code when nodemailer replaced it with its own (ECONNREFUSED under ESOCKET). */
  originalCode?: string;
  responseCode?: number;
  /** The server's reply, as received. */
  response?: string;
  /** The SMTP command that failed ('CONN', 'RCPT TO', 'AUTH PLAIN', …). */
  command?: string;
  /** Which of nodemailer's timers fired: CONNECT_TIMEOUT, GREETING_TIMEOUT or SOCKET_TIMEOUT. */
  timeoutType?: string;
  message?: string;
}

/** Longest piece of a server reply put into a MailError message. */
const MAX_REPLY = 200;

/**
 * What a failed send tells its caller (a MailError in plain words) and the log (nodemailer's
 * code, command and message). `secrets` (the SMTP password) are removed from both: servers have
 * no business echoing a password, but a reply is text we do not control.
 *
 * Permanent: the server answered 5xx — the mailbox does not exist, a policy refuses the message,
 * the login is refused (retrying cannot help until SMTP_URL is fixed) — except 503 (bad sequence
 * of commands: the session, not the message) — or the message itself can never go out (too large,
 * no valid address). Everything else can pass by itself: connection refused or reset, DNS, TLS,
 * timeouts, a greeting that never came, 4xx.
 */
export function smtpFailure(error: unknown, context: { timeoutMs: number; secrets: readonly string[] }): TransportFailure {
  const e: NodemailerError = typeof error === 'object' && error !== null ? (error as NodemailerError) : { message: String(error) };
  const scrub = (text: string) => scrubSecrets(text, context.secrets);
  const mailError = classify(e, context.timeoutMs / 1000, scrub);
  return new TransportFailure(mailError, {
    code: e.code,
    original_code: e.originalCode,
    command: e.command,
    response_code: e.responseCode,
    error: scrub(e.message ?? ''),
  });
}

function classify(e: NodemailerError, seconds: number, scrub: (text: string) => string): MailError {
  const code = e.responseCode;
  if (code !== undefined && code >= 400 && code < 600) {
    return new MailError(`${refused(e.command)}: ${oneLine(scrub(e.response ?? String(code)))}`, {
      permanent: code >= 500 && code !== 503,
      responseCode: code,
    });
  }
  const retry = (message: string) => new MailError(message, { permanent: false });
  const tls = tlsFailure({ code: e.originalCode, message: e.message ?? '' });
  switch (e.code) {
    case 'EABORT':
      return retry(`The mail server did not take the message within ${6 * seconds} s.`);
    case 'ETIMEDOUT':
      if (e.timeoutType === 'CONNECT_TIMEOUT') return retry(`Could not connect to the mail server within ${seconds} s.`);
      if (e.timeoutType === 'GREETING_TIMEOUT') return retry(`The mail server did not greet within ${seconds} s.`);
      return retry(`The mail server stopped answering (no reply within ${3 * seconds} s).`);
    case 'EDNS':
      return retry('Could not find the mail server: its host name did not resolve.');
    case 'ETLS':
      return retry(`Could not set up TLS with the mail server${tls ? `: ${tlsReason(tls)}` : ''}.`);
    case 'ESOCKET':
    case 'ECONNECTION':
      if (tls) return retry(`Could not set up TLS with the mail server: ${tlsReason(tls)}.`);
      return retry(connectionProblem(e));
    case 'EENVELOPE':
      return new MailError('The message has no valid sender or recipient.', { permanent: true });
    case 'EMESSAGE':
      return new MailError(
        /larger than allowed/.test(e.message ?? '')
          ? 'The message is larger than the mail server accepts.'
          : 'The message could not be built.',
        { permanent: true },
      );
    case 'EPROTOCOL':
      return retry('The mail server answered something that is not SMTP.');
    case 'EAUTH':
      return retry('The login to the mail server did not complete.');
    default:
      return retry('The message could not be sent (unexpected error in the mail client).');
  }
}

function connectionProblem(e: NodemailerError): string {
  switch (e.originalCode) {
    case 'ECONNREFUSED':
      return 'Could not connect to the mail server: connection refused.';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'Could not connect to the mail server: no route to its host.';
    case 'ETIMEDOUT':
      return 'Could not connect to the mail server: the connection timed out.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'Could not find the mail server: its host name did not resolve.';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'The mail server reset the connection.';
    default:
      return 'The mail server closed the connection unexpectedly.';
  }
}

/** The words for what a server refused, by the command it refused. */
function refused(command: string | undefined): string {
  if (command === 'RCPT TO') return 'The mail server refused the recipient';
  if (command === 'MAIL FROM') return 'The mail server refused the sender';
  if (command?.startsWith('AUTH')) return 'The mail server refused the login';
  if (command === 'STARTTLS') return 'The mail server refused to start TLS';
  if (command === 'CONN' || command === 'EHLO' || command === 'HELO') return 'The mail server refused the connection';
  return 'The mail server refused the message';
}

/** The webhook TLS reasons read `tls_error: the certificate …`; here they follow a sentence of their own. */
function tlsReason(reason: string): string {
  return reason.replace(/^tls_error: /, '');
}

/** A server reply as one short line of printable text. */
function oneLine(text: string): string {
  const line = text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > MAX_REPLY ? `${line.slice(0, MAX_REPLY - 1)}…` : line;
}

/**
 * Removes each secret in the forms it travels in (as is, percent-encoded as in SMTP_URL, base64 as
 * AUTH LOGIN sends it) and anything shaped like one of our own tokens (a sign-in link's).
 */
function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])
      out = out.split(form).join('[redacted]');
  }
  return redactSecrets(out);
}

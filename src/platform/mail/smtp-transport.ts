import type { SMTPSentMessageInfo, SMTPTransportOptions, Transporter } from 'nodemailer';
import type { MailConfig, SmtpConfig } from '../config/config.js';
import { newId } from '../crypto/random.js';
import { smtpFailure } from './smtp-failure.js';
import type { MailTransport } from './transport.js';

/**
 * Sends through the SMTP server of SMTP_URL with nodemailer.
 *
 * One connection per message, not a pool: the service sends a handful of messages a minute at
 * most (access requests, sign-in links), so a pool would mostly hold idle connections that the
 * server drops after a minute or two, and the next message would be the one to find out. A fresh
 * connection per message costs a TCP and TLS handshake (tens of milliseconds) and makes every send
 * independent: a server that was down is simply tried again by the next send, and nothing is left
 * open at shutdown.
 *
 * Timeouts (`SMTP_TIMEOUT_SECONDS`, T, default 10 s): connecting, the greeting and the STARTTLS
 * upgrade together within T (nodemailer's connection deadline; DNS within T too), each later
 * reply within 3T (servers may scan a message before answering its DATA), the whole send within
 * 6T. Nodemailer's defaults (2 minutes to connect, 10 minutes of silence) would hold a request or
 * a job for minutes on a dead server.
 *
 * Nodemailer is imported on the first send (about 80 ms): every process builds a mailer, and most
 * (the CLI, a worker with nothing to mail) never send anything.
 */
export function createSmtpTransport(mail: MailConfig & { smtp: SmtpConfig }): MailTransport {
  const { smtp, from, timeoutMs } = mail;
  const options: SMTPTransportOptions = {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.implicitTls,
    // STARTTLS is used whenever the server offers it (nodemailer's default); `required` also fails
    // when it does not, so a password or a sign-in link never crosses a network in clear.
    requireTLS: !smtp.implicitTls && smtp.starttls === 'required',
    // Only where plain text was allowed anyway: a failed upgrade then goes on unencrypted
    // (a loopback mail catcher with a certificate nobody issued). Nodemailer sends no login then.
    opportunisticTLS: smtp.starttls === 'optional',
    tls: { minVersion: 'TLSv1.2' },
    ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.pass } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    socketTimeout: 3 * timeoutMs,
    // Its own logging would print the SMTP dialogue (with the AUTH exchange) at debug level.
    logger: false,
    debug: false,
    // Messages are text we build: never let a field make nodemailer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  let transporter: Promise<Transporter<SMTPSentMessageInfo, SMTPTransportOptions>> | undefined;
  const connect = () => (transporter ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options)));
  const secrets = smtp.auth ? [smtp.auth.pass] : [];
  const idDomain = from.address.slice(from.address.lastIndexOf('@') + 1);

  return {
    name: 'smtp',
    async send(message) {
      try {
        const info = await (
          await connect()
        ).sendMail({
          from: { name: from.name ?? '', address: from.address },
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: `<${newId('msg')}@${idDomain}>`,
          // RFC 3834: automatic mail, so out-of-office replies and auto-forwarders leave it alone.
          headers: { 'Auto-Submitted': 'auto-generated' },
          signal: AbortSignal.timeout(6 * timeoutMs),
        });
        return { messageId: info.messageId, response: info.response };
      } catch (error) {
        throw smtpFailure(error, { timeoutMs, secrets });
      }
    },
    async close() {
      if (transporter) (await transporter).close();
    },
  };
}

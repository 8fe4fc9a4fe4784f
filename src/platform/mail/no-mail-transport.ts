import { MailError } from './mailer.js';
import { TransportFailure, type MailTransport } from './transport.js';

/**
 * Why a production server without SMTP_URL sent nothing: one line a client may read on its
 * access request (`notification.last_error`), naming what the operator has to set.
 */
export function noMailError(): MailError {
  return new MailError('Not sent: this server has no SMTP_URL, and in production it keeps no outbox, so it sends no e-mail.', {
    permanent: true,
  });
}

/**
 * The transport of a production server without SMTP_URL: refuses every message for good and
 * keeps none. The development outbox is not an option there: a stored message holds a working
 * sign-in link, and nobody is meant to read it (/dev/mail is not served in production).
 */
export function createNoMailTransport(): MailTransport {
  return {
    name: 'none',
    async send() {
      throw new TransportFailure(noMailError(), {});
    },
    close: async () => undefined,
  };
}

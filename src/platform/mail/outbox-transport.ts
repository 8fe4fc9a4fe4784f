import type { Clock } from '../clock.js';
import { unixSeconds } from '../clock.js';
import { newId } from '../crypto/random.js';
import type { Db } from '../db/database.js';
import { formatMailbox, type Mailbox } from './address.js';
import { MailError } from './mailer.js';
import { insertOutboxMessage } from './outbox.repository.js';
import { TransportFailure, type MailTransport } from './transport.js';

/**
 * Keeps each message in `mail_outbox` instead of sending it (no SMTP_URL): development and tests
 * read it at /dev/mail. The row's id (`msg_…`) is the message id.
 */
export function createOutboxTransport(deps: { db: Db; clock: Clock }, from: Mailbox): MailTransport {
  const fromHeader = formatMailbox(from);
  return {
    name: 'outbox',
    async send(mail) {
      const id = newId('msg');
      try {
        await insertOutboxMessage(deps.db, {
          id,
          to_address: mail.to,
          from_address: fromHeader,
          subject: mail.subject,
          text_body: mail.text,
          html_body: mail.html,
          kind: mail.kind,
          created_at: unixSeconds(deps.clock),
        });
      } catch (error) {
        throw new TransportFailure(new MailError('The message could not be stored in the outbox.', { permanent: false }), {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return { messageId: id };
    },
    close: async () => undefined,
  };
}

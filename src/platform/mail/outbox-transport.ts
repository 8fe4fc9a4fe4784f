import type { Clock } from '../clock.js';
import { unixSeconds } from '../clock.js';
import { newId } from '../crypto/random.js';
import type { Db } from '../db/database.js';
import { formatMailbox, type Mailbox } from './address.js';
import { MailError } from './mailer.js';
import { deleteExpiredOutboxMessages, insertOutboxMessage } from './outbox.repository.js';
import { TransportFailure, type MailTransport } from './transport.js';

/** Expired messages deleted at most with each new one. */
const PURGE_LIMIT = 100;

/**
 * Keeps each message in `mail_outbox` instead of sending it (no SMTP_URL, outside production):
 * development and tests read it at /dev/mail for 24 hours (`OUTBOX_TTL_SECONDS`). The row's id
 * (`msg_…`) is the message id.
 *
 * Each message stored also deletes a batch of expired ones. Purging in step with inserts keeps the
 * table bounded without a scheduler (the worker has none), as with idempotency keys; unlike them,
 * on every insert rather than every 100th, since a development server sends a few messages an
 * hour. Expired rows not yet deleted are already unreadable: every read skips them.
 */
export function createOutboxTransport(deps: { db: Db; clock: Clock }, from: Mailbox): MailTransport {
  const fromHeader = formatMailbox(from);
  return {
    name: 'outbox',
    async send(mail) {
      const id = newId('msg');
      const now = unixSeconds(deps.clock);
      try {
        // Before the insert: a purge that fails then fails the send, never a send that was stored.
        await deleteExpiredOutboxMessages(deps.db, now, PURGE_LIMIT);
        await insertOutboxMessage(deps.db, {
          id,
          to_address: mail.to,
          from_address: fromHeader,
          subject: mail.subject,
          text_body: mail.text,
          html_body: mail.html,
          kind: mail.kind,
          created_at: now,
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

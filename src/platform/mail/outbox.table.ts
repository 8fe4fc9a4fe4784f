import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Messages the outbox transport kept instead of sending (no SMTP_URL): what /dev/mail shows.
 * Not scoped to a client or mode: it is the service's own mail, read by the people running it.
 */
export interface MailOutboxTable {
  seq: Generated<number>;
  /** `msg_…`, also the message id `send` resolves with. */
  id: string;
  to_address: string;
  /** The From header as it would have been sent (`ownproof <no-reply@example.com>`). */
  from_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  kind: string;
  created_at: number;
}

export type OutboxMessageRow = Selectable<MailOutboxTable>;
export type NewOutboxMessageRow = Insertable<MailOutboxTable>;

export interface MailTables {
  mail_outbox: MailOutboxTable;
}

declare module '../db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins this table to the service's Database
  interface Database extends MailTables {}
}

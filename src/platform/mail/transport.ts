import type { Mailer, MailError, OutgoingMail } from './mailer.js';

/** What `createMailer` wraps: one way of handing a checked message over, without logging or checks of its own. */
export interface MailTransport {
  readonly name: Mailer['transport'];
  send(mail: OutgoingMail): Promise<{ messageId: string; /** For the log line: the server's reply (its queue id). */ response?: string }>;
  close(): Promise<void>;
}

/**
 * A transport's failure: the MailError the caller gets, and for the log line only, what the
 * library said (its error code, the SMTP command, its message with any secret removed).
 */
export class TransportFailure extends Error {
  constructor(
    readonly mailError: MailError,
    readonly detail: Record<string, unknown>,
  ) {
    super(mailError.message);
    this.name = 'TransportFailure';
  }
}

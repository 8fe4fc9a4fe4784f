import { defineCounter } from '../metrics/metric.js';

/** Every message handed to the mailer, by what became of it; never by recipient. */
export const mailMessages = defineCounter({
  name: 'ownproof_mail_messages_total',
  help: 'E-mail messages handed to the mailer, by kind, transport and outcome: sent, failed_transient (retried later by its job), failed_permanent (refused for good: unknown mailbox, bad login, no transport in production, a message that can never go out).',
  labelNames: ['kind', 'transport', 'outcome'],
});

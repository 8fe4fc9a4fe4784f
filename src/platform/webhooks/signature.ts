import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * A signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes (the spec
 * asks for 24 to 64). Integrators pass it unchanged to `new Webhook(secret)` of any
 * standardwebhooks library.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each secret,
 * space-separated. During a rotation's grace period both the new and the previous secret sign, so
 * a receiver verifies with either (the standardwebhooks libraries accept any matching signature).
 */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestampSeconds: number, body: string): string {
  const at = new Date(timestampSeconds * 1000);
  return secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' ');
}

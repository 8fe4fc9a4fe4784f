import { WebhookVerificationError } from './errors.js';
import type { components } from './generated/openapi.js';

/** An event as the API and webhooks carry it; narrow it on `type`. */
export type OwnproofEvent = components['schemas']['Event'];

/** Headers as Node's `IncomingMessage`, a Fetch `Headers` object or a plain record carry them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** How far a delivery's `webhook-timestamp` may be from your clock (Standard Webhooks: 5 minutes). */
const TOLERANCE_SECONDS = 5 * 60;

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a webhook delivery the Standard Webhooks way and returns its event: `webhook-signature`
 * must hold a `v1` HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's
 * secret (`whsec_…`; during a rotation, either secret's signature is listed and one match is
 * enough), the timestamp within 5 minutes of `now`. Pass the body exactly as received (a string or
 * the raw bytes, never re-serialized JSON). Throws {@link WebhookVerificationError} otherwise.
 * Deduplicate on the event id: a delivery can arrive more than once.
 */
export async function unwrap(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: { now?: Date } = {},
): Promise<OwnproofEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  const sentAt = Number(timestamp);
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - sentAt) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError('webhook-timestamp is missing, malformed or more than 5 minutes from now');
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('the secret is not a webhook secret (whsec_…)');
  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = base64ToBytes(secret.slice('whsec_'.length));
  } catch {
    throw new WebhookVerificationError('the webhook secret is not valid base64 after whsec_');
  }
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = encoder.encode(`${id}.${timestamp}.${text}`);
  let valid = false;
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = base64ToBytes(signature);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time.
    if (await globalThis.crypto.subtle.verify('HMAC', key, bytes, signed)) {
      valid = true;
      break;
    }
  }
  if (!valid) throw new WebhookVerificationError('no webhook-signature matches this body and secret');
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  if (typeof event !== 'object' || event === null || (event as { id?: unknown }).id !== id)
    throw new WebhookVerificationError('the body is not the event named by webhook-id');
  return event as OwnproofEvent;
}

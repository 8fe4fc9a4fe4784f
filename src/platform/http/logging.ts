import type { FastifyRequest } from 'fastify';
import type { LogLevel } from '../config/config.js';

/**
 * Anything shaped like one of our secrets (API keys, session client secrets, webhook secrets,
 * portal tokens). Paths such as the hosted connect URL carry a secret, so URLs are scrubbed too.
 */
const SECRET_PATTERN = /\b(sk_(?:test|live)|cs_(?:test|live)|pt)_[0-9A-Za-z]+/g;
/** Webhook secrets are base64 (Standard Webhooks), so they may hold `+`, `/` and `=`. */
const WEBHOOK_SECRET_PATTERN = /\bwhsec_[0-9A-Za-z+/=]+/g;

export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, '$1_[redacted]').replace(WEBHOOK_SECRET_PATTERN, 'whsec_[redacted]');
}

/** pino options for Fastify: JSON lines, request ids, and secrets removed wherever they may appear. */
export function loggerOptions(level: LogLevel) {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.secret',
        '*.client_secret',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: redactSecrets(request.url),
          remoteAddress: request.ip,
        };
      },
      err(error: Error & { code?: string; statusCode?: number }) {
        return {
          type: error.name,
          message: redactSecrets(error.message),
          code: error.code,
          statusCode: error.statusCode,
          stack: redactSecrets(error.stack ?? ''),
        };
      },
    },
  };
}

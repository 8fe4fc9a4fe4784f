import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import type { LogLevel } from '../config/config.js';

/**
 * Anything shaped like one of our secrets (API keys, session client secrets, webhook secrets,
 * portal tokens). Paths such as the hosted connect URL carry a secret, so URLs are scrubbed too.
 */
const SECRET_PATTERN = /\b(sk_(?:test|live)|cs_(?:test|live)|pt)_[0-9A-Za-z]+/g;
/** Webhook secrets are base64 (Standard Webhooks), so they may hold `+`, `/` and `=`. */
const WEBHOOK_SECRET_PATTERN = /\bwhsec_[0-9A-Za-z+/=]+/g;

/** OAuth 2 values that travel in query strings (the return leg's `code` and `state`) are bearer values too. */
const OAUTH_PARAMETER_PATTERN = /([?&](?:code|state|code_verifier|access_token|refresh_token)=)[^&#\s"]*/g;

export function redactSecrets(text: string): string {
  return text
    .replace(SECRET_PATTERN, '$1_[redacted]')
    .replace(WEBHOOK_SECRET_PATTERN, 'whsec_[redacted]')
    .replace(OAUTH_PARAMETER_PATTERN, '$1[redacted]');
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
        // Objects that carry secrets under these names, when logged whole. (Not wildcards: a `*`
        // path makes pino walk every key of every line, which tripled the cost of a log line.)
        'password',
        'secret',
        'client_secret',
        'connection',
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

/**
 * Standard output for logs, buffered: lines are written in chunks of 4 KiB, and at least once a
 * second, instead of one blocking write per line (which cost more than a small API request). The
 * price: on a hard kill (SIGKILL, power loss) up to a second of log lines may be lost; on a normal
 * exit, a crash or SIGTERM they are flushed.
 */
export function bufferedStdout(): { stream: NodeJS.WritableStream } {
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: false });
  const timer = setInterval(() => flushQuietly(destination), 1000);
  timer.unref();
  return { stream: destination as unknown as NodeJS.WritableStream };
}

function flushQuietly(destination: ReturnType<typeof pino.destination>): void {
  try {
    destination.flush();
  } catch {
    // Not ready yet (the file descriptor is still opening) or already closed: nothing to flush.
  }
}

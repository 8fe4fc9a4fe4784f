import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import type { LogLevel } from '../config/config.js';
import { SECRET_KINDS, type SecretKind } from '../crypto/secret-kinds.js';

const KINDS: readonly SecretKind[] = Object.values(SECRET_KINDS);
const listed = (pick: (kind: SecretKind) => readonly string[] | undefined) => [...new Set(KINDS.flatMap((kind) => pick(kind) ?? []))];
const prefixes = (alphabet: SecretKind['alphabet']) => listed((kind) => (kind.alphabet === alphabet ? kind.prefixes : undefined)).join('|');

/** Text shaped like a secret we mint (`<prefix>_<random>`), for every prefix of the list, by alphabet. */
const MINTED_PATTERNS = [
  new RegExp(`\\b(${prefixes('base62')})_[0-9A-Za-z]+`, 'g'),
  new RegExp(`\\b(${prefixes('base64')})_[0-9A-Za-z+/=]+`, 'g'),
];
/** The value of every query (or form) parameter that carries a secret. */
const PARAMETER_PATTERN = new RegExp(`([?&](?:${listed((kind) => kind.parameters).join('|')})=)[^&#\\s"]*`, 'g');

/**
 * Removes every secret of the list (`SECRET_KINDS`) that text can show: anything shaped like one
 * we mint, and the values of the parameters that carry the others. For URLs (the hosted connect
 * and portal sign-in URLs carry secrets in their paths), error messages and stacks.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of MINTED_PATTERNS) out = out.replace(pattern, '$1_[redacted]');
  return out.replace(PARAMETER_PATTERN, '$1[redacted]');
}

/** pino options for Fastify: JSON lines, request ids, and secrets removed wherever they may appear. */
export function loggerOptions(level: LogLevel) {
  return {
    level,
    redact: {
      // The fields and headers the list says carry a secret, for objects logged whole.
      paths: listed((kind) => kind.logPaths),
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
 * A logger for work outside a request — the job worker, the mailer — with the same redaction as
 * the HTTP app's: a job's error or a mail server's reply is scrubbed like a request's. Writes to
 * standard output (or `stream`).
 */
export function createLogger(level: LogLevel, stream?: pino.DestinationStream): pino.Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
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

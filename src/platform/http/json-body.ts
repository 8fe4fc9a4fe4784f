import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './errors.js';

/** The charset parameter of a Content-Type, if there is one. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/**
 * JSON-only bodies for the API: exactly `application/json`, in any letter case and with any
 * parameters; every other type gets 415, including the `+json` types, whose semantics differ from
 * ours (a merge patch deletes with `null`, JSON:API wraps objects in `data`). JSON is UTF-8 (RFC
 * 8259): a body declared in another charset is 415 rather than misread, and bytes that are not
 * UTF-8 are invalid JSON rather than stored as replacement characters. An empty body counts as no
 * body (many HTTP clients send `Content-Type: application/json` on a bare POST);
 * `__proto__`/`constructor` keys are refused rather than risk prototype pollution.
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // A string is matched against the media type alone, which Fastify has lower-cased and stripped of parameters.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !UTF8_LABELS.has(charset.toLowerCase())) {
      done(new ApiError('unsupported_media_type'), undefined);
      return;
    }
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(new ApiError('invalid_json'), undefined);
      return;
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new ApiError('invalid_json'), undefined);
    }
  });
}

import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './errors.js';

/**
 * JSON-only bodies for the API. An empty body counts as no body (many HTTP clients send
 * `Content-Type: application/json` on a bare POST); `__proto__`/`constructor` keys are refused
 * rather than risk prototype pollution. Other media types get 415.
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
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

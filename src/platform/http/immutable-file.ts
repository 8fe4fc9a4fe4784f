import type { FastifyReply, FastifyRequest } from 'fastify';

/** A stored file that never changes once made: a statement PDF. */
export interface ImmutableFile {
  body: Buffer;
  /** SHA-256 of `body`, lowercase hex. */
  sha256: string;
  contentType: string;
  /** Plain ASCII, no quotes (ids, formats). */
  filename: string;
}

/**
 * Whether `If-None-Match` names this entity tag (RFC 9110 §13.1.2: `*`, or a list compared
 * weakly, so `W/"…"` matches too).
 */
function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a file that is the same on every download: its SHA-256 is its strong `ETag` and its
 * `Content-Digest` (RFC 9530), it may be cached by the client for a year without asking again
 * (`private`: it is one client's document), and a request that already has it (`If-None-Match`)
 * gets 304 without the body. The same headers go with the 304, as RFC 9110 §15.4.5 asks.
 */
export function sendImmutableFile(request: FastifyRequest, reply: FastifyReply, file: ImmutableFile): FastifyReply {
  const etag = `"${file.sha256}"`;
  reply.header('etag', etag).header('cache-control', 'private, max-age=31536000, immutable');
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply
    .header('content-digest', `sha-256=:${Buffer.from(file.sha256, 'hex').toString('base64')}:`)
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .type(file.contentType)
    .send(file.body);
}

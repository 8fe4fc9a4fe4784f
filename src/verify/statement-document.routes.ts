import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendImmutableFile } from '../platform/http/immutable-file.js';
import { errorResponses, IdParams } from '../platform/http/schemas.js';
import { StatementPdfQuery } from './statement-document.schemas.js';
import { downloadStatementPdf } from './statement-document.service.js';

const header = (description: string) => ({ type: 'string', description });

/** Documents of a statement: its PDF. */
export const statementDocumentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/verify/statements/:id/document/pdf',
    {
      schema: {
        tags: ['Statements'],
        operationId: 'downloadStatementPdf',
        summary: 'Download a statement as PDF',
        description:
          'The statement as a PDF (`format=monthly`, the default, or `custom`), laid out for the server’s `STATEMENT_PAGE_SIZE`. The PDF embeds the statement’s ' +
          'data signed as a compact JWS (EdDSA, keys at `/.well-known/jwks.json`) and prints its document hash, the SHA-256 of that signed data, with a link to ' +
          'check it. The first PDF of a statement (either format) is generated and billed once (`GET /v1/usage`, the statement’s `pdf_generated_at`); each ' +
          'format is generated once and stored, and every later download is the same file, free: `ETag` and `Content-Digest` are its SHA-256, and ' +
          '`If-None-Match` with that ETag answers 304. A statement still `pending` is 409 `statement_not_ready`; a `failed` one is 409 `statement_failed`. ' +
          'Rules: docs/verify.md, "Statement PDFs".',
        params: IdParams('stmt_', 'statement'),
        querystring: StatementPdfQuery,
        response: {
          200: {
            description: 'The PDF.',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            headers: {
              ETag: header('The SHA-256 of the file, lowercase hex, quoted: the same on every download.'),
              'Content-Digest': header('`sha-256=:…:` (RFC 9530): the SHA-256 of the file, base64.'),
              'Cache-Control': header('`private, max-age=31536000, immutable`: the file never changes.'),
              'Content-Disposition': header('`attachment; filename="statement-{id}-{format}.pdf"`.'),
            },
          },
          304: {
            description: 'Not modified: `If-None-Match` named this file’s ETag. No body.',
            headers: { ETag: header('The file’s ETag.'), 'Cache-Control': header('As for 200.') },
          },
          ...errorResponses(409),
        },
      },
    },
    async (request, reply) => {
      const file = await downloadStatementPdf(app.ctx, request.scope, request.params.id, request.query.format ?? 'monthly');
      return sendImmutableFile(request, reply, { body: file.pdf, sha256: file.sha256, contentType: 'application/pdf', filename: file.filename });
    },
  );
};

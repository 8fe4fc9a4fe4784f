import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../platform/http/errors.js';
import { sendImmutableFile } from '../../platform/http/immutable-file.js';
import { acceptJsonBodiesOnly } from '../../platform/http/json-body.js';
import { binaryContent, errorResponses, IdParams, publicErrorResponses } from '../../platform/http/schemas.js';
import { CheckStatementBody, MAX_STATEMENT_PDF_BYTES, StatementCheck, StatementPdfQuery } from './statement-document.schemas.js';
import { checkStatementFile, checkStatementHash, downloadStatementPdf } from './statement-document.service.js';

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
            content: binaryContent('application/pdf'),
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
      return sendImmutableFile(request, reply, {
        body: file.pdf,
        sha256: file.sha256,
        contentType: 'application/pdf',
        filename: file.filename,
      });
    },
  );
};

/**
 * Checking a statement document, for anyone (no API key): a PDF as sent, or a document hash.
 * Limited per client IP address, like the receipt check.
 */
export const statementCheckRoutes: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonBodiesOnly(app);
  app.addContentTypeParser('application/pdf', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addSchema(StatementCheck);

  app.post(
    '/v1/verify/statements/verify',
    {
      bodyLimit: MAX_STATEMENT_PDF_BYTES,
      config: { ipRateLimit: true },
      schema: {
        tags: ['Statements'],
        operationId: 'checkStatement',
        summary: 'Check a statement PDF or document hash',
        description:
          'No API key needed. Send the PDF as it was downloaded (`Content-Type: application/pdf`, at most 32 MiB), or `{"document_hash": "…"}` as JSON ' +
          '(the hash printed on the statement and held by its QR code). Says whether it is an unaltered statement issued by this service and what it states. ' +
          'A PDF is checked with the service’s published keys only: its file signature (any change to the file, even re-saving it, breaks it), the signed ' +
          'statement data attached, and the Bitcoin proof of every claim in it — what `ownproof verify-statement` does offline. A hash names a document ' +
          'issued here, checked the same way. A forged, altered or unknown document is `valid: false` with a `reason`. Rules: docs/verify.md, "Checking a statement".',
        security: [],
        body: {
          content: {
            'application/json': { schema: CheckStatementBody },
            ...binaryContent('application/pdf', 'The statement PDF, byte for byte as downloaded.'),
          },
        },
        response: { 200: Type.Ref(StatementCheck), ...publicErrorResponses(400, 413, 415, 429) },
      },
    },
    async (request) => {
      const body = request.body as Buffer | CheckStatementBody | undefined;
      if (Buffer.isBuffer(body)) return checkStatementFile(app.ctx, body);
      if (body === undefined)
        throw new ApiError('parameter_missing', {
          param: 'document_hash',
          message: 'Send the statement PDF (Content-Type: application/pdf) or {"document_hash": "…"}.',
        });
      return checkStatementHash(app.ctx, body.document_hash);
    },
  );
};

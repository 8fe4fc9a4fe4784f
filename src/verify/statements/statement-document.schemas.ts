import { Type, type Static } from '@sinclair/typebox';
import { SHA256_HEX } from '@ownproof/verify';
import { PAGE_SIZES } from '../../platform/config/config.js';
import { AccountHolder } from '../../connect/account-holder.schemas.js';
import { Timestamp } from '../../platform/http/schemas.js';
import { ClaimStatement } from '../claims/claim.schemas.js';
import { StatementData } from './statement.schemas.js';

/** The two layouts of a statement's PDF (docs/verify.md, "Statement PDFs"). */
export const STATEMENT_PDF_FORMATS = ['monthly', 'custom'] as const;
export type StatementPdfFormat = (typeof STATEMENT_PDF_FORMATS)[number];

export const StatementPdfQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union(
        STATEMENT_PDF_FORMATS.map((f) => Type.Literal(f)),
        {
          description:
            '`monthly` (the default): the summary, then a summary and the transactions of each calendar month of the statement’s time zone, like a bank statement. ' +
            '`custom`: one summary and every transaction of the whole period in one table.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type StatementPdfQuery = Static<typeof StatementPdfQuery>;

/**
 * What a statement PDF states, signed: the payload of the compact JWS embedded in the PDF. Its
 * SHA-256 is the document hash printed on every page. Fixed once issued: the PDF is generated
 * once per format and stored.
 */
export const StatementDocument = Type.Object(
  {
    iss: Type.String({ description: 'The issuer: the service’s public base URL.' }),
    document: Type.Object(
      {
        format: Type.Union(STATEMENT_PDF_FORMATS.map((f) => Type.Literal(f))),
        page_size: Type.Union(
          PAGE_SIZES.map((s) => Type.Literal(s)),
          { description: 'The paper size it was laid out for (`STATEMENT_PAGE_SIZE` when it was issued).' },
        ),
        issued_at: Timestamp('When this document was generated (Unix seconds).'),
      },
      { additionalProperties: false },
    ),
    statement: Type.Object(
      {
        id: Type.String(),
        livemode: Type.Boolean(),
        requested_by: Type.String({ description: 'The name of the client that requested the statement.' }),
        account_holder: Type.Pick(AccountHolder, ['id', 'email', 'name', 'external_ref'], {
          additionalProperties: false,
          description:
            'As the client had recorded the account holder when the document was issued (`external_ref`: the client’s own reference).',
        }),
        created_at: Timestamp('When the statement was requested.'),
        completed_at: Timestamp('When it was computed.'),
      },
      { additionalProperties: false },
    ),
    claims: Type.Array(
      Type.Object(
        {
          claim: ClaimStatement,
          receipt: Type.String({
            description: 'The claim’s receipt (compact JWS) as issued: check it on its own with `ownproof verify-claim`.',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'The statement’s claims, in its order.' },
    ),
    data: StatementData,
  },
  { additionalProperties: false },
);
export type StatementDocument = Static<typeof StatementDocument>;

const Sha256Hex = (description: string) => Type.String({ pattern: SHA256_HEX.source, description });

/** The largest statement PDF the check takes (a 10,000-transaction statement is well under 2 MiB). */
export const MAX_STATEMENT_PDF_MIB = 32;
export const MAX_STATEMENT_PDF_BYTES = MAX_STATEMENT_PDF_MIB * 1024 * 1024;

export const CheckStatementBody = Type.Object(
  { document_hash: Sha256Hex('The document hash printed on the statement (64 hex digits, lowercase).') },
  { additionalProperties: false },
);
export type CheckStatementBody = Static<typeof CheckStatementBody>;

/** The verdict on a statement PDF or document hash: whether it is an unaltered statement issued by the issuer, and what it states. */
export const StatementCheck = Type.Object(
  {
    object: Type.Literal('statement_check'),
    valid: Type.Boolean({
      description: 'True when the file (or the document of this hash) is a statement document issued by this service, unaltered.',
    }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is not valid; null when valid.' }),
    issuer: Type.Union([Type.String(), Type.Null()], {
      description: 'Who signed it (the issuer’s public base URL), when that could be read.',
    }),
    signing_key_id: Type.Union([Type.String(), Type.Null()], { description: 'The published key that signed it, when valid.' }),
    document_hash: Type.Union([Sha256Hex('The document hash.'), Type.Null()]),
    file_sha256: Type.Union([Sha256Hex('The SHA-256 of the whole PDF file (the download’s ETag).'), Type.Null()]),
    document: Type.Union([StatementDocument, Type.Null()], {
      description: 'What the statement states (the signed data attached to the PDF), when valid.',
    }),
  },
  { $id: 'StatementCheck', title: 'Statement check' },
);
export type StatementCheck = Static<typeof StatementCheck>;

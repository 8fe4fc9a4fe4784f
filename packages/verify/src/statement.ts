import { createHash } from 'node:crypto';
import { isClaimStatement, type ClaimStatement } from './claim.js';
import { checkSignedJws, jsonPayload, type SignedKind, type VerificationKeys } from './jws.js';
import type * as PdfAttachment from './pdf-attachment.js';
import { receiptVerifier } from './receipt.js';
import { arrayOf, isBoolean, isInteger, isSats, isString, object, type Guard } from './shape.js';

/** The JWS `typ` of a statement document (the signed data attached to a statement PDF). */
export const STATEMENT_DOCUMENT_TYPE = 'ownproof-statement+jws';
/** The JWS `typ` of a statement PDF's file signature. */
export const STATEMENT_FILE_TYPE = 'ownproof-statement-file+jws';
/** The signed data's file name inside a statement PDF. */
export const attachmentName = (statementId: string) => `ownproof-statement-${statementId}.jws`;
/** A SHA-256 as ownproof writes it: 64 lowercase hex digits. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * A statement PDF ends with one more line after its `%%EOF`: a PDF comment holding a compact JWS
 * over the SHA-256 of every byte before it (docs/verify.md, "Checking a statement"). PDF readers
 * look for `%%EOF` in a file's last 1,024 bytes and skip comments, so every reader still opens it;
 * any change to the file — a figure edited, a page dropped, the file re-saved — breaks the hash.
 */
const SEAL_PREFIX = Buffer.from('\n%ownproof-signature ', 'latin1');
/** The seal line is about 500 bytes; look no further back than PDF readers look for `%%EOF`. */
const SEAL_SEARCH_BYTES = 1024;

/** The line the issuer appends to a rendered statement PDF: its file signature (a compact JWS). */
export const fileSignatureLine = (jws: string): Buffer => Buffer.concat([SEAL_PREFIX, Buffer.from(`${jws}\n`, 'latin1')]);

/** The payload of a statement PDF's file signature: which document the file is, and the SHA-256 of every byte before the signature. */
export interface StatementFileSeal {
  statement_id: string;
  /** `monthly` or `custom`: the layout. */
  format: string;
  /** The SHA-256 of the attached signed data's payload (the document hash printed on every page). */
  document_hash: string;
  /** The SHA-256 of the file before its signature line. */
  pdf_sha256: string;
}

/**
 * What a statement PDF states, signed (the payload of the attached JWS). Named here are the fields
 * this package reads; the issuer's API reference (the `StatementDocument` schema) has them all.
 */
export interface StatementDocument {
  iss: string;
  document: { format: string; issued_at: number; [field: string]: unknown };
  statement: {
    id: string;
    livemode: boolean;
    requested_by: string;
    account_holder: { id: string; [field: string]: unknown };
    [field: string]: unknown;
  };
  claims: { claim: ClaimStatement; receipt: string }[];
  data: {
    period: { open: number; close: number };
    timezone: string;
    chain: { height: number; block_hash: string; [field: string]: unknown };
    summary: {
      opening_balance: string;
      closing_balance: string;
      total_in: string;
      total_out: string;
      total_fees: string;
      transaction_count: number;
      [field: string]: unknown;
    };
    [field: string]: unknown;
  };
}

/** The verdict on a statement PDF: whether it is an unaltered statement of the issuer, and what it states. */
export interface StatementCheck {
  object: 'statement_check';
  valid: boolean;
  /** Why it is not valid; null when valid. */
  reason: string | null;
  issuer: string | null;
  signing_key_id: string | null;
  document_hash: string | null;
  file_sha256: string | null;
  document: StatementDocument | null;
}

const isSha256: Guard = (value) => typeof value === 'string' && SHA256_HEX.test(value);
const isSeal = object({ statement_id: isString, format: isString, document_hash: isSha256, pdf_sha256: isSha256 }) as (
  value: unknown,
) => value is StatementFileSeal;
const open = (fields: Record<string, Guard>) => object(fields, {}, false);
const isDocument = open({
  iss: isString,
  document: open({ format: isString, issued_at: isInteger }),
  statement: open({ id: isString, livemode: isBoolean, requested_by: isString, account_holder: open({ id: isString }) }),
  claims: arrayOf(object({ claim: isClaimStatement, receipt: isString })),
  data: open({
    period: object({ open: isInteger, close: isInteger }),
    timezone: isString,
    chain: open({ height: isInteger, block_hash: isString }),
    summary: open({
      opening_balance: isSats,
      closing_balance: isSats,
      total_in: isSats,
      total_out: isSats,
      total_fees: isSats,
      transaction_count: isInteger,
    }),
  }),
}) as (value: unknown) => value is StatementDocument;

// The file signature is itself a signature: its reasons name it once ("the file signature does not match…").
const FILE_SIGNATURE: SignedKind = {
  typ: STATEMENT_FILE_TYPE,
  subject: 'the file signature',
  signature: 'the file signature',
  kind: 'a statement file signature',
};
const STATEMENT_DATA: SignedKind = {
  typ: STATEMENT_DOCUMENT_TYPE,
  subject: 'the attached statement data',
  signature: 'the signature of the attached statement data',
  kind: 'a statement document',
};

/** SHA-256, lowercase hex. */
export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The SHA-256 of `head` and of `head` + `tail`, hashing `head` once: a sealed PDF and the bytes its
 * signature covers differ only by the signature line.
 */
function sha256WithTail(head: Uint8Array, tail: Uint8Array): { head: string; whole: string } {
  const hash = createHash('sha256').update(head);
  return { head: hash.copy().digest('hex'), whole: hash.update(tail).digest('hex') };
}

/** The signed bytes and the signature line of a sealed PDF, or undefined when it has none. */
function splitFileSignature(file: Buffer): { signed: Buffer; jws: string } | undefined {
  const from = Math.max(0, file.length - SEAL_SEARCH_BYTES);
  const found = file.subarray(from).lastIndexOf(SEAL_PREFIX);
  if (found < 0) return undefined;
  const at = from + found;
  const jws = file.subarray(at + SEAL_PREFIX.length).toString('latin1');
  if (!jws.endsWith('\n')) return undefined;
  return { signed: file.subarray(0, at), jws: jws.slice(0, -1) };
}

/** A verdict that the file or hash is not a valid statement document, with what could be read. */
export const statementCheckFailure = (
  reason: string,
  facts: Partial<Pick<StatementCheck, 'issuer' | 'signing_key_id' | 'document_hash' | 'file_sha256'>> = {},
): StatementCheck & { valid: false; document: null } => ({
  object: 'statement_check',
  valid: false,
  reason,
  issuer: null,
  signing_key_id: null,
  document_hash: null,
  file_sha256: null,
  document: null,
  ...facts,
});

// pdf-lib loads on the first check a process makes, not when this package is imported.
let attachments: Promise<typeof PdfAttachment> | undefined;

/**
 * Checks a statement PDF with nothing but the issuer's public keys: that the file is exactly as it
 * was issued (its file signature), that the data attached is the statement's signed data, and that
 * the Bitcoin proof of every claim in it holds (each receipt checked as {@link receiptVerifier}
 * does). The PDF is parsed only once its file signature holds, so a stranger's file never reaches
 * the parser. Never throws on input.
 */
export async function checkStatementPdf(file: Uint8Array, keys: VerificationKeys): Promise<StatementCheck> {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) return statementCheckFailure('not a PDF');
  const sealed = splitFileSignature(bytes);
  if (!sealed) {
    return statementCheckFailure(
      'the file carries no ownproof signature: it is not a statement issued by ownproof, or it was changed or re-saved after it was issued',
      { file_sha256: sha256Hex(bytes) },
    );
  }
  const hashes = sha256WithTail(sealed.signed, bytes.subarray(sealed.signed.length));
  const fileSha256 = hashes.whole;
  const signature = await checkSignedJws(sealed.jws, keys, FILE_SIGNATURE);
  // Each reason of checkSignedJws names the file signature already: no prefix that names it again.
  if (!signature.ok) return statementCheckFailure(signature.reason, { file_sha256: fileSha256 });
  const seal = jsonPayload(signature.payload);
  if (!isSeal(seal)) return statementCheckFailure('the file signature does not name a statement document', { file_sha256: fileSha256 });
  const facts = { document_hash: seal.document_hash, file_sha256: fileSha256 };
  if (hashes.head !== seal.pdf_sha256)
    return statementCheckFailure('the file was changed after it was issued: its content no longer matches its signature', facts);

  attachments ??= import('./pdf-attachment.js');
  const attached = await (await attachments).pdfAttachment(sealed.signed, attachmentName(seal.statement_id));
  if (!attached) return statementCheckFailure('the signed statement data is not attached to the file', facts);
  // The data must hold on its own too: whoever extracts the attachment checks it without the PDF.
  const data = await checkSignedJws(Buffer.from(attached).toString('latin1'), keys, STATEMENT_DATA);
  if (!data.ok) return statementCheckFailure(data.reason, facts);
  if (sha256Hex(data.payload) !== seal.document_hash)
    return statementCheckFailure('the attached statement data is not the data the file was signed with', facts);
  const document = jsonPayload(data.payload);
  if (!isDocument(document)) return statementCheckFailure('the attached data is not a statement document', facts);
  const withIssuer = { ...facts, issuer: document.iss };
  if (document.statement.id !== seal.statement_id || document.document.format !== seal.format)
    return statementCheckFailure('the attached data is of another statement document', withIssuer);

  const verifyReceipt = receiptVerifier(keys);
  for (const { claim, receipt } of document.claims) {
    const verdict = await verifyReceipt(receipt);
    if (!verdict.valid) return statementCheckFailure(`in claim ${claim.id}, ${verdict.reason}`, withIssuer);
    if (verdict.claim.id !== claim.id || verdict.issuer !== document.iss)
      return statementCheckFailure(`the receipt given for claim ${claim.id} is of another claim or issuer`, withIssuer);
  }
  return {
    object: 'statement_check',
    valid: true,
    reason: null,
    issuer: document.iss,
    signing_key_id: signature.kid,
    document_hash: seal.document_hash,
    file_sha256: fileSha256,
    document,
  };
}

import { createHash } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { lazyModule } from '../platform/jobs/catalog.js';
import { checkSignedJws, jsonPayload, receiptVerifier, signJws, type ReceiptSigningKey, type SignedKind, type VerificationKeys } from './receipt.js';
import {
  STATEMENT_DOCUMENT_TYPE,
  STATEMENT_FILE_TYPE,
  StatementDocument,
  StatementFileSeal,
  attachmentName,
  type StatementCheck,
} from './statement-document.schemas.js';

// pdf-lib loads on the first check a process makes, not when the server starts.
const attachments = lazyModule(() => import('./statement-pdf/pdf-attachment.js'));

/**
 * A statement PDF ends with one more line after its `%%EOF`: a PDF comment holding a compact JWS
 * over the SHA-256 of every byte before it (docs/verify.md, "Checking a statement"). PDF readers
 * look for `%%EOF` in a file's last 1,024 bytes and skip comments, so every reader still opens it;
 * any change to the file — a figure edited, a page dropped, the file re-saved — breaks the hash.
 */
const SEAL_PREFIX = Buffer.from('\n%ownproof-signature ', 'latin1');
/** The seal line is about 500 bytes; look no further back than PDF readers look for `%%EOF`. */
const SEAL_SEARCH_BYTES = 1024;

// The file signature is itself a signature: its reasons name it once ("the file signature does not match…").
const FILE_SIGNATURE: SignedKind = { typ: STATEMENT_FILE_TYPE, subject: 'the file signature', signature: 'the file signature', kind: 'a statement file signature' };
const STATEMENT_DATA: SignedKind = {
  typ: STATEMENT_DOCUMENT_TYPE,
  subject: 'the attached statement data',
  signature: 'the signature of the attached statement data',
  kind: 'a statement document',
};

const sealCheck = TypeCompiler.Compile(StatementFileSeal);
const documentCheck = TypeCompiler.Compile(StatementDocument);
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

/**
 * The issued file: the rendered PDF with its file signature appended, a compact JWS (same key as
 * the attached data) over which statement document it is and the SHA-256 of `rendered`; and the
 * SHA-256 of the whole file.
 */
export async function sealStatementPdf(key: ReceiptSigningKey, rendered: Uint8Array, document: Omit<StatementFileSeal, 'pdf_sha256'>): Promise<{ pdf: Buffer; sha256: string }> {
  const hash = createHash('sha256').update(rendered);
  const seal: StatementFileSeal = { ...document, pdf_sha256: hash.copy().digest('hex') };
  const jws = await signJws(key, STATEMENT_FILE_TYPE, Buffer.from(JSON.stringify(seal), 'utf8'));
  const line = Buffer.concat([SEAL_PREFIX, Buffer.from(`${jws}\n`, 'latin1')]);
  return { pdf: Buffer.concat([rendered, line]), sha256: hash.update(line).digest('hex') };
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
export const statementCheckFailure = (reason: string, facts: Partial<StatementCheck> = {}): StatementCheck => ({
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

/**
 * Checks a statement PDF with nothing but the issuer's public keys: that the file is exactly as it
 * was issued (its file signature), that the data attached is the statement's signed data, and that
 * the Bitcoin proof of every claim in it holds (each receipt checked as `verify-claim` does). The
 * PDF is parsed only once its file signature holds, so a stranger's file never reaches the parser.
 * Never throws on input.
 */
export async function checkStatementPdf(file: Buffer, keys: VerificationKeys): Promise<StatementCheck> {
  if (!file.subarray(0, 5).equals(Buffer.from('%PDF-'))) return statementCheckFailure('not a PDF');
  const sealed = splitFileSignature(file);
  if (!sealed) {
    return statementCheckFailure('the file carries no ownproof signature: it is not a statement issued by ownproof, or it was changed or re-saved after it was issued', { file_sha256: sha256Hex(file) });
  }
  const hashes = sha256WithTail(sealed.signed, file.subarray(sealed.signed.length));
  const fileSha256 = hashes.whole;
  const signature = await checkSignedJws(sealed.jws, keys, FILE_SIGNATURE);
  // Each reason of checkSignedJws names the file signature already: no prefix that names it again.
  if (!signature.ok) return statementCheckFailure(signature.reason, { file_sha256: fileSha256 });
  const seal = jsonPayload(signature.payload);
  if (!sealCheck.Check(seal)) return statementCheckFailure('the file signature does not name a statement document', { file_sha256: fileSha256 });
  const facts = { document_hash: seal.document_hash, file_sha256: fileSha256 };
  if (hashes.head !== seal.pdf_sha256) return statementCheckFailure('the file was changed after it was issued: its content no longer matches its signature', facts);

  const attached = await (await attachments()).pdfAttachment(sealed.signed, attachmentName(seal.statement_id));
  if (!attached) return statementCheckFailure('the signed statement data is not attached to the file', facts);
  // The data must hold on its own too: whoever extracts the attachment checks it without the PDF.
  const data = await checkSignedJws(Buffer.from(attached).toString('latin1'), keys, STATEMENT_DATA);
  if (!data.ok) return statementCheckFailure(data.reason, facts);
  if (sha256Hex(data.payload) !== seal.document_hash) return statementCheckFailure('the attached statement data is not the data the file was signed with', facts);
  const document = jsonPayload(data.payload);
  if (!documentCheck.Check(document)) return statementCheckFailure('the attached data is not a statement document', facts);
  const withIssuer = { ...facts, issuer: document.iss };
  if (document.statement.id !== seal.statement_id || document.document.format !== seal.format) return statementCheckFailure('the attached data is of another statement document', withIssuer);

  const verifyReceipt = receiptVerifier(keys);
  for (const { claim, receipt } of document.claims) {
    const verdict = await verifyReceipt(receipt);
    if (!verdict.valid) return statementCheckFailure(`in claim ${claim.id}, ${verdict.reason}`, withIssuer);
    if (verdict.claim.id !== claim.id || verdict.issuer !== document.iss) return statementCheckFailure(`the receipt given for claim ${claim.id} is of another claim or issuer`, withIssuer);
  }
  return { object: 'statement_check', valid: true, reason: null, issuer: document.iss, signing_key_id: signature.kid, document_hash: seal.document_hash, file_sha256: fileSha256, document };
}

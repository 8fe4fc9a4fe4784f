import { createHash } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  checkStatementPdf as checkStatementFile,
  fileSignatureLine,
  statementCheckFailure,
  STATEMENT_FILE_TYPE,
  type StatementFileSeal,
  type VerificationKeys,
} from '@ownproof/verify';
import { signJws, type ReceiptSigningKey } from '../claims/receipt.js';
import { StatementDocument, type StatementCheck } from './statement-document.schemas.js';

const documentCheck = TypeCompiler.Compile(StatementDocument);

/**
 * The issued file: the rendered PDF with its file signature appended (@ownproof/verify's
 * `fileSignatureLine`), a compact JWS (same key as the attached data) over which statement document
 * it is and the SHA-256 of `rendered`; and the SHA-256 of the whole file.
 */
export async function sealStatementPdf(
  key: ReceiptSigningKey,
  rendered: Uint8Array,
  document: Omit<StatementFileSeal, 'pdf_sha256'>,
): Promise<{ pdf: Buffer; sha256: string }> {
  const hash = createHash('sha256').update(rendered);
  const seal: StatementFileSeal = { ...document, pdf_sha256: hash.copy().digest('hex') };
  const jws = await signJws(key, STATEMENT_FILE_TYPE, Buffer.from(JSON.stringify(seal), 'utf8'));
  const line = fileSignatureLine(jws);
  return { pdf: Buffer.concat([rendered, line]), sha256: hash.update(line).digest('hex') };
}

/**
 * @ownproof/verify's check of a statement PDF (what `ownproof verify-statement` and anyone offline
 * run), and then the document's full shape as this service's API describes it: a valid verdict
 * carries the whole typed document.
 */
export async function checkStatementPdf(file: Buffer, keys: VerificationKeys): Promise<StatementCheck> {
  const { document, ...verdict } = await checkStatementFile(file, keys);
  if (document === null) return { ...verdict, document: null };
  if (!documentCheck.Check(document))
    return statementCheckFailure('the attached data is not a statement document', {
      issuer: verdict.issuer,
      document_hash: verdict.document_hash,
      file_sha256: verdict.file_sha256,
    });
  return { ...verdict, document };
}

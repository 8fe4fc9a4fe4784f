import { clientDisplayName } from '../../clients/client.service.js';
import { retrieveAccountHolder } from '../../connect/account-holder.service.js';
import { unixSeconds } from '../../platform/clock.js';
import type { Config } from '../../platform/config/config.js';
import type { AppContext } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/http/errors.js';
import type { Scope } from '../../platform/scope.js';
import { lazyModule } from '../../platform/lazy-module.js';
import { recordUsageOnce } from '../../platform/usage/usage.service.js';
import { claimsOfHolders, claimStatement } from '../claims/claim.repository.js';

import { signJwsBytes, type ReceiptSigningKey } from '../claims/receipt.js';
import { activeSigningKey, publishedVerificationKeys } from '../claims/signing-key.service.js';
import { sha256Hex, statementCheckFailure, STATEMENT_DOCUMENT_TYPE } from '@ownproof/verify';
import { checkStatementPdf, sealStatementPdf } from './statement-check.js';
import {
  findStatementDocument,
  findStatementDocumentByHash,
  findStatementForDocument,
  findStatementWithData,
  insertStatementDocumentOnce,
  markPdfGenerated,
} from './statement-document.repository.js';
import { statementClaimIds, statementData } from './statement.repository.js';
import { type StatementCheck, type StatementDocument, type StatementPdfFormat } from './statement-document.schemas.js';

export type StatementDocumentDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox'>;

/** A statement PDF as stored and served. */
export interface StatementPdfFile {
  pdf: Buffer;
  /** SHA-256 of `pdf`, lowercase hex. */
  sha256: string;
  filename: string;
}

/** Where anyone checks a statement or a claim receipt (the document check pages); statements print it. */
export const documentCheckUrl = (config: Pick<Config, 'publicBaseUrl'>) => `${config.publicBaseUrl}/verify`;

// pdfkit and the fonts load on the first PDF a process makes, not when the server starts.
const pdfRenderer = lazyModule(() => import('./pdf/statement-pdf.js'));

/**
 * A completed statement's PDF in `format`. The first download of a format generates it — signs the
 * statement's data, renders the PDF and stores both — and the first generation of either format
 * records the statement's one billable use (`statement_pdf`) and sets `pdf_generated_at`, in one
 * transaction. Every later download is the stored bytes and records nothing. Two first downloads
 * at once (in one process or several) may both render, but the unique indexes on the document
 * (statement, format) and the usage record (type, statement) let one of each in: both callers get
 * the stored document, and the use is billed once (docs/verify.md, "Statement PDFs").
 */
export async function downloadStatementPdf(
  deps: StatementDocumentDeps,
  scope: Scope,
  id: string,
  format: StatementPdfFormat,
): Promise<StatementPdfFile> {
  const found = await findStatementForDocument(deps.db, scope, id, format);
  if (!found) throw notFound('statement', id);
  if (found.status === 'pending') {
    throw new ApiError('statement_not_ready', {
      param: 'id',
      message: `Statement '${id}' is still being computed; download its PDF once it is completed (event statement.completed).`,
    });
  }
  if (found.status === 'failed') {
    throw new ApiError('statement_failed', {
      param: 'id',
      message: `Statement '${id}' failed, so it has no document: ${found.failure_reason ?? 'no reason was recorded.'} Generate a new statement.`,
    });
  }
  const filename = `statement-${id}-${format}.pdf`;
  if (found.pdf && found.pdf_sha256) return { pdf: found.pdf, sha256: found.pdf_sha256, filename };
  return { ...(await issueStatementPdf(deps, scope, id, format)), filename };
}

/** What the document states, as of now: the statement's stored data and who and what it is about. */
async function statementDocument(
  deps: StatementDocumentDeps,
  scope: Scope,
  id: string,
  format: StatementPdfFormat,
  issuedAt: number,
): Promise<StatementDocument> {
  const row = await findStatementWithData(deps.db, id);
  if (!row || row.data === null || row.completed_at === null) throw new Error(`statement ${id} has no data to document`);
  const holder = await retrieveAccountHolder(deps, scope, row.account_holder_id);
  const claimIds = statementClaimIds(row);
  const claimRows = new Map((await claimsOfHolders(deps.db, [row.account_holder_id])).map((claim) => [claim.id, claim]));
  const claims = claimIds.map((claimId) => {
    const claim = claimRows.get(claimId);
    if (!claim) throw new Error(`statement ${id}: claim ${claimId} not found`);
    return { claim: claimStatement(claim), receipt: claim.receipt };
  });
  return {
    iss: deps.config.publicBaseUrl,
    document: { format, page_size: deps.config.statementPageSize, issued_at: issuedAt },
    statement: {
      id,
      livemode: scope.mode === 'live',
      requested_by: (await clientDisplayName(deps, scope.clientId)) ?? scope.clientId,
      account_holder: { id: holder.id, email: holder.email, name: holder.name, external_ref: holder.external_ref },
      created_at: row.created_at,
      completed_at: row.completed_at,
    },
    claims,
    data: statementData({ id: row.id, data: row.data }),
  };
}

/**
 * The file of a statement document, as a first download issues it: the document signed (the JWS
 * attached), the PDF rendered and sealed with the file signature. Pure but for the fonts; storing
 * and billing are the caller's.
 */
export async function statementFile(
  key: ReceiptSigningKey,
  document: StatementDocument,
  verifyUrl: string,
): Promise<{ pdf: Buffer; sha256: string; documentHash: string }> {
  const payload = Buffer.from(JSON.stringify(document), 'utf8');
  const documentHash = sha256Hex(payload);
  const jws = signJwsBytes(key, STATEMENT_DOCUMENT_TYPE, payload);
  const rendered = await (await pdfRenderer()).renderStatementPdf({ document, jws, kid: key.kid, documentHash, verifyUrl });
  const sealed = await sealStatementPdf(key, rendered, {
    statement_id: document.statement.id,
    format: document.document.format,
    document_hash: documentHash,
  });
  return { ...sealed, documentHash };
}

/** Generates, signs and stores the document, billing the statement's first one; returns whichever document of this format is stored. */
async function issueStatementPdf(
  deps: StatementDocumentDeps,
  scope: Scope,
  id: string,
  format: StatementPdfFormat,
): Promise<Omit<StatementPdfFile, 'filename'>> {
  const now = unixSeconds(deps.clock);
  const document = await statementDocument(deps, scope, id, format, now);
  const key = await activeSigningKey(deps);
  const { pdf, sha256: pdfSha256, documentHash } = await statementFile(key, document, documentCheckUrl(deps.config));
  const stored = await deps.db.transaction().execute(async (trx) => {
    const inserted = await insertStatementDocumentOnce(trx, {
      statement_id: id,
      format,
      page_size: document.document.page_size,
      pdf,
      pdf_sha256: pdfSha256,
      document_hash: documentHash,
      signing_key_id: key.kid,
      created_at: now,
    });
    if (await recordUsageOnce(trx, scope, { type: 'statement_pdf', resourceId: id, at: now })) await markPdfGenerated(trx, id, now);
    return inserted;
  });
  if (stored) return { pdf, sha256: pdfSha256 };
  // Another request stored this format first: serve its document, so every download is the same file.
  const winner = await findStatementDocument(deps.db, id, format);
  if (!winner) throw new Error(`statement ${id}: the ${format} document vanished`);
  return { pdf: winner.pdf, sha256: winner.pdf_sha256 };
}

/**
 * Checks a statement PDF for anyone (no API key): the offline check of `ownproof verify-statement`
 * with this service's published keys, and that this service is its issuer.
 */
export async function checkStatementFile(deps: Pick<AppContext, 'db' | 'config'>, file: Buffer): Promise<StatementCheck> {
  const verdict = await checkStatementPdf(file, await publishedVerificationKeys(deps));
  if (!verdict.valid || verdict.issuer === deps.config.publicBaseUrl) return verdict;
  return statementCheckFailure(`issued by ${verdict.issuer}, not by this service (${deps.config.publicBaseUrl})`, {
    issuer: verdict.issuer,
    document_hash: verdict.document_hash,
    file_sha256: verdict.file_sha256,
  });
}

/**
 * Checks the statement document of a document hash (the one printed on it and in its QR code): the
 * file issued with that hash, checked as {@link checkStatementFile} checks an uploaded one. The
 * hash is as good as the PDF: only who holds the document can know it.
 */
export async function checkStatementHash(deps: Pick<AppContext, 'db' | 'config'>, documentHash: string): Promise<StatementCheck> {
  const stored = await findStatementDocumentByHash(deps.db, documentHash);
  if (!stored) return statementCheckFailure('no statement document with this hash was issued here', { document_hash: documentHash });
  return checkStatementFile(deps, stored.pdf);
}

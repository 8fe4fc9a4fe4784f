/** @ownproof/verify: offline checks of ownproof claim receipts and statement PDFs (README.md). */
export {
  verificationKeys,
  checkSignedJws,
  jsonPayload,
  SIGNATURE_ALGORITHM,
  type VerificationKeys,
  type SignedKind,
  type SignedJwsCheck,
} from './jws.js';
export { verifyReceipt, receiptVerifier, checkProof, RECEIPT_TYPE, type ReceiptVerdict } from './receipt.js';
export {
  PROOF_FORMATS,
  MAX_RECEIPT_LENGTH,
  isClaimStatement,
  type ProofFormat,
  type ClaimStatement,
  type ClaimSubject,
  type ClaimProof,
  type ReceiptPayload,
} from './claim.js';
export { challengeMessage, challengeMismatch, type ChallengeText, type ChallengeSubject } from './challenge.js';
export {
  checkStatementPdf,
  statementCheckFailure,
  fileSignatureLine,
  sha256Hex,
  attachmentName,
  SHA256_HEX,
  STATEMENT_DOCUMENT_TYPE,
  STATEMENT_FILE_TYPE,
  type StatementCheck,
  type StatementDocument,
  type StatementFileSeal,
} from './statement.js';
export { describeReceiptVerdict, describeStatementVerdict, receiptVerdictJson } from './describe.js';
export {
  runReceiptCheck,
  runStatementCheck,
  runVerifyCli,
  EXIT_VALID,
  EXIT_INVALID,
  EXIT_USAGE,
  type VerifyIo,
  type ReceiptCommand,
  type StatementCommand,
  type StatementReport,
} from './commands.js';

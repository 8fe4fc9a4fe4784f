import type { Generated, Selectable } from 'kysely';
import type { Mode } from '../platform/scope.js';

/** An Ed25519 key that signs claim receipts. Retired keys stay, so old receipts keep verifying. */
export interface SigningKeyTable {
  seq: Generated<number>;
  /** The JWS `kid`. */
  id: string;
  /** Public JWK (JSON text), as `/.well-known/jwks.json` publishes it. */
  public_jwk: string;
  /** Private JWK sealed with the master key (secret box). */
  private_jwk_sealed: string;
  status: 'active' | 'retired';
  created_at: number;
  retired_at: number | null;
}

export interface ChallengeTable {
  seq: Generated<number>;
  /** `chl_…` */
  id: string;
  /** The account holder's client: challenges live in the holder's tenancy. */
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  method: 'signature' | 'deposit';
  /** ChallengeSubject as JSON (claims/challenge.schemas.ts). */
  subject: string;
  /** The address whose key signs (or, for a deposit, the address or wallet that pays). */
  signing_address: string;
  /** For a wallet: the non-hardened path from the wallet's key to the signing address (`0/0`). */
  signing_path: string | null;
  /** The exact text to sign (signature) or to show (deposit). */
  message: string;
  /** For a deposit: the service address to pay, its index on DEPOSIT_XPUB, and the exact amount (sats, decimal text). */
  deposit_address: string | null;
  deposit_index: number | null;
  deposit_amount: string | null;
  status: 'open' | 'used' | 'expired' | 'failed';
  failed_attempts: number;
  /** ChallengeOrigin as JSON (claims/challenge.schemas.ts). */
  origin: string;
  /** The person's label for the claim. */
  label: string | null;
  /** The identity proving it, which the claim is bound to (see ClaimTable.controller). */
  controller: string;
  claim_id: string | null;
  created_at: number;
  expires_at: number;
}

export interface ClaimTable {
  seq: Generated<number>;
  /** `clm_…` */
  id: string;
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  /**
   * Who controls the claim: the e-mail identity (lower-cased) it was proven under — the portal
   * sign-in that proved it, or the account holder's address at the time when it was proven in a
   * connect session. Only that identity sees and manages it in the portal; an account holder whose
   * address changes later hands the new address nothing (docs/verify.md, "Who controls a claim").
   */
  controller: string;
  /** The claim's statement (everything the receipt signs), as JSON. */
  statement: string;
  /** Wallet claims: every address of the wallet found in use at verification, JSON array. */
  addresses: string;
  status: 'active' | 'revoked';
  /** Compact JWS over the statement. */
  receipt: string;
  signing_key_id: string;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

/** A claim shared with a client, with what the client may see of it. One per (client, claim). */
export interface ClaimGrantTable {
  seq: Generated<number>;
  client_id: string;
  mode: Mode;
  claim_id: string;
  /** JSON array of `balances`, `statements`. */
  permissions: string;
  /** How it was granted: `connect_session:sess_…` or `access_request:ar_…` (the latest one that widened it). */
  source: string;
  created_at: number;
  revoked_at: number | null;
}

export const ACCESS_REQUEST_STATUSES = ['pending', 'granted', 'declined', 'expired', 'canceled'] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** A client's request that an account holder share claims with it. */
export interface AccessRequestTable {
  seq: Generated<number>;
  /** `ar_…` */
  id: string;
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  type: 'sharing';
  /** JSON array of `balances`, `statements`. */
  permissions: string;
  /** Shown to the person (plain text). */
  message: string | null;
  status: AccessRequestStatus;
  /** JSON array of the claims shared, once granted. */
  claim_ids: string;
  /** The e-mail to the account holder: `pending` until sent (retrying after a temporary failure), then `sent` or `failed`. */
  notification_status: NotificationStatus;
  notification_error: string | null;
  notification_sent_at: number | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
  responded_at: number | null;
}

/** A single-use link that signs a person in to the portal (sha256 of the token; the token itself is only in the e-mail). */
export interface PortalLinkTable {
  seq: Generated<number>;
  token_hash: string;
  /** Lower-cased e-mail address the link was sent to. */
  email: string;
  /** JSON array of the modes whose account holders the session may see (`test` only when mail went to the outbox). */
  modes: string;
  /** The request the link opens after sign-in (the link in an access-request e-mail). */
  access_request_id: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A signed-in portal session (sha256 of the cookie's token). */
export interface PortalSessionTable {
  seq: Generated<number>;
  token_hash: string;
  email: string;
  modes: string;
  created_at: number;
  expires_at: number;
  ended_at: number | null;
}

/** Sign-in link requests, kept an hour, for the per-address and per-IP limits (shared by every process through the database). */
export interface PortalSignInAttemptTable {
  seq: Generated<number>;
  email: string;
  ip: string;
  created_at: number;
}

export const STATEMENT_STATUSES = ['pending', 'completed', 'failed'] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

/** A statement of shared claims over a period; computed by a job, fixed once completed. */
export interface StatementTable {
  seq: Generated<number>;
  /** `stmt_…` */
  id: string;
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  /** JSON array of the claim ids, in the order the client gave them. */
  claim_ids: string;
  period_open: number;
  period_close: number;
  /** IANA name, as the client gave it. */
  timezone: string;
  status: StatementStatus;
  failure_reason: string | null;
  /** StatementSummary as JSON, once completed (small: the API reads it without `data`). */
  summary: string | null;
  /** StatementChain as JSON, once completed. */
  chain: string | null;
  /** The ISO 4217 currency to value the statement in, as asked for; null: no valuation. */
  valuation_currency: string | null;
  /** StatementValuationSummary as JSON, once completed with a valuation asked for. */
  valuation: string | null;
  /** StatementData as JSON, once completed: every figure and transaction, never recomputed. */
  data: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** When its first PDF was generated (and billed); null until then. */
  pdf_generated_at: number | null;
}

/** A statement's PDF in one format, generated once and served as stored ever after. */
export interface StatementDocumentTable {
  seq: Generated<number>;
  statement_id: string;
  format: 'monthly' | 'custom';
  page_size: string;
  pdf: Buffer;
  /** SHA-256 of `pdf`, lowercase hex: the ETag and Content-Digest of every download. */
  pdf_sha256: string;
  /** SHA-256 of the signed data embedded in the PDF (the JWS payload), lowercase hex: the hash printed on it. */
  document_hash: string;
  /** The JWS `kid`. */
  signing_key_id: string;
  created_at: number;
}

export type SigningKeyRow = Selectable<SigningKeyTable>;
export type ChallengeRow = Selectable<ChallengeTable>;
export type ClaimRow = Selectable<ClaimTable>;
export type ClaimGrantRow = Selectable<ClaimGrantTable>;
export type AccessRequestRow = Selectable<AccessRequestTable>;
export type PortalSessionRow = Selectable<PortalSessionTable>;

export interface VerifyTables {
  verify_signing_keys: SigningKeyTable;
  verify_challenges: ChallengeTable;
  verify_claims: ClaimTable;
  verify_claim_grants: ClaimGrantTable;
  verify_access_requests: AccessRequestTable;
  verify_portal_links: PortalLinkTable;
  verify_portal_sessions: PortalSessionTable;
  verify_portal_sign_in_attempts: PortalSignInAttemptTable;
  verify_statements: StatementTable;
  verify_statement_documents: StatementDocumentTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends VerifyTables {}
}

import type { Generated, Insertable, Selectable } from 'kysely';
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

/** What a challenge asks the person to prove. */
export type ChallengeSubject = { type: 'address'; address: string } | { type: 'wallet'; descriptor: string };

/** Where a challenge was started; the claim is shared accordingly. */
export type ChallengeOrigin = { kind: 'connect_session'; session_id: string; permissions: string[] } | { kind: 'portal' };

export interface ChallengeTable {
  seq: Generated<number>;
  /** `chl_…` */
  id: string;
  /** The account holder's client: challenges live in the holder's tenancy. */
  client_id: string;
  mode: Mode;
  account_holder_id: string;
  method: 'signature' | 'deposit';
  /** ChallengeSubject as JSON. */
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
  /** ChallengeOrigin as JSON. */
  origin: string;
  /** The person's label for the claim. */
  label: string | null;
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
  /** How it was granted: `connect_session:sess_…` (later: access requests). */
  source: string;
  created_at: number;
  revoked_at: number | null;
}

export type SigningKeyRow = Selectable<SigningKeyTable>;
export type ChallengeRow = Selectable<ChallengeTable>;
export type NewChallengeRow = Insertable<ChallengeTable>;
export type ClaimRow = Selectable<ClaimTable>;
export type ClaimGrantRow = Selectable<ClaimGrantTable>;

export interface VerifyTables {
  verify_signing_keys: SigningKeyTable;
  verify_challenges: ChallengeTable;
  verify_claims: ClaimTable;
  verify_claim_grants: ClaimGrantTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends VerifyTables {}
}

import type { Transaction } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../../platform/db/schema.js';
import type { Scope } from '../../../platform/scope.js';
import type { SendPageOptions } from '../../../platform/web/page-surface.js';
import type { ClaimRow } from '../../verify.table.js';
import type { ChallengeOrigin } from '../challenge.schemas.js';

/**
 * Where the proof pages are shown and for whom: what the surface that mounts them (the connect
 * flow, later the portal) knows about the request. The surface decides who the person is, what
 * they prove and where they go afterwards; the proof pages do the rest.
 */
export interface ProofPlace {
  /** The account holder's client and mode. */
  scope: Scope;
  accountHolderId: string;
  /** Who asks, as the person knows them (the client's display name). */
  requesterName: string;
  /** Path of the proof pages for this place (no trailing slash). */
  base: string;
  /**
   * What to prove: an address, an extended public key or a descriptor. Absent: the person enters
   * it, with a label of their own, on the pages' first form (the portal's "prove a wallet").
   */
  subject?: string;
  /** How the person calls it ("Bitcoin wallet (native segwit)"); absent: "this address" / "this wallet". */
  subjectName?: string;
  origin: ChallengeOrigin;
  /**
   * The identity the claim is bound to, who alone manages it in the portal: the signed-in
   * person's address there; in a connect session, the account holder's address now.
   */
  controller: string;
  /** The way back without proving. */
  back: { href: string; label: string };
  /** Where to go once proven (after a POST: answered with 303). */
  doneUrl: string;
  /** How the surface sends its pages (test-mode badge, form-action origins). */
  sendOptions: SendPageOptions;
  /** The surface's own record of the claim, written in the claim's transaction. */
  alsoInTransaction?: (trx: Transaction<Database>, claim: ClaimRow) => Promise<void>;
}

/** What a surface gives the proof pages. */
export interface ProofHost {
  /**
   * The place of this request; or undefined when the request has none, after sending the
   * surface's own answer (its 404 or "link expired" page).
   */
  resolve(request: FastifyRequest, reply: FastifyReply): Promise<ProofPlace | undefined>;
}

import { makeWallet, type TestWallet, type WalletType } from '../../src/bitcoin/message/fixtures/signers.js';
import { signMessage, singleKeyWallet } from '../../src/bitcoin/message/sign-message.js';
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import { retrieveAccountHolder } from '../../src/connect/account-holder.service.js';
import { emailIdentity } from '../../src/platform/mail/address.js';
import type { Scope } from '../../src/platform/scope.js';
import { startSignatureChallenge, submitSignature, type ProofDeps } from '../../src/verify/claims/proof.service.js';
import { shareSessionClaims } from '../../src/verify/access/sharing.service.js';
import type { ChallengeOrigin } from '../../src/verify/claims/challenge.schemas.js';
import type { ChallengeRow } from '../../src/verify/verify.table.js';

/** A testnet wallet with a fresh random key (multisig types are 2-of-3). */
export function testnetWallet(type: WalletType): TestWallet {
  return makeWallet(type, 'testnet');
}

/** The sandbox wallet's key at a receive index, as a signing wallet (P2WPKH, testnet). */
export function sandboxSigner(index = 0): TestWallet {
  return singleKeyWallet(sandboxWallet().privateKey('receive', index), 'p2wpkh', 'testnet');
}

/** A connect session a proof is made in, with the permissions the session asked for (what its Done shares). */
export type InSession = Extract<ChallengeOrigin, { kind: 'connect_session' }> & { permissions: string[] };

/** The origin a challenge records: a session's permissions are the session's, not the challenge's. */
function challengeOrigin(origin: ChallengeOrigin | InSession): ChallengeOrigin {
  if (origin.kind !== 'connect_session') return origin;
  return {
    kind: 'connect_session',
    session_id: origin.session_id,
    ...(origin.account_id === undefined ? {} : { account_id: origin.account_id }),
  };
}

/**
 * A challenge for `subject` (address or wallet text), started as the hosted pages would: bound to
 * the account holder's address, as a connect session or the holder's own portal sign-in binds it.
 */
export async function startChallenge(
  deps: ProofDeps & Pick<Parameters<typeof retrieveAccountHolder>[0], 'db'>,
  scope: Scope,
  accountHolderId: string,
  subject: string,
  origin: ChallengeOrigin | InSession = { kind: 'portal' },
): Promise<ChallengeRow> {
  const holder = await retrieveAccountHolder(deps, scope, accountHolderId);
  const started = await startSignatureChallenge(
    deps,
    { scope, accountHolderId, requesterName: 'Acme Lending', origin: challengeOrigin(origin), controller: emailIdentity(holder.email) },
    subject,
  );
  if (!started.ok) throw new Error(`challenge refused: ${started.message}`);
  return started.challenge;
}

/**
 * Proves `wallet` for an account holder end to end through the service; returns the claim row.
 * With a connect-session origin the session is taken to have completed with Done: the claim is
 * shared with the client by the function session completion calls (`shareSessionClaims`), as the
 * hosted flow's Done would (`proveInHostedSession` in connect.ts drives the real pages).
 */
export async function proveWith(
  deps: ProofDeps & Pick<Parameters<typeof shareSessionClaims>[1], 'capabilities'>,
  scope: Scope,
  accountHolderId: string,
  wallet: TestWallet,
  origin?: Extract<ChallengeOrigin, { kind: 'portal' }> | InSession,
) {
  const challenge = await startChallenge(deps, scope, accountHolderId, wallet.address, origin);
  const outcome = await submitSignature(deps, challenge, signMessage(wallet, challenge.message));
  if (!outcome.ok) throw new Error(`proof refused: ${JSON.stringify(outcome)}`);
  if (origin?.kind === 'connect_session') await shareAsSessionDone(deps, scope, origin, outcome.claim.id);
  return outcome.claim;
}

/** What Done in the claim's connect session does for it: shares it with the session's client (`shareSessionClaims`). */
export async function shareAsSessionDone(
  deps: Pick<ProofDeps, 'db' | 'clock'> & Pick<Parameters<typeof shareSessionClaims>[1], 'capabilities'>,
  scope: Scope,
  origin: InSession,
  claimId: string,
): Promise<void> {
  await deps.db
    .transaction()
    .execute((trx) => shareSessionClaims(trx, deps, { id: origin.session_id, scope, permissions: origin.permissions }, [claimId]));
}

import { makeWallet, type TestWallet, type WalletType } from '../../src/bitcoin/message/fixtures/signers.js';
import { signMessage, singleKeyWallet } from '../../src/bitcoin/message/sign-message.js';
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import type { Scope } from '../../src/platform/scope.js';
import { startSignatureChallenge, submitSignature, type ProofDeps } from '../../src/verify/proof.service.js';
import type { ChallengeOrigin, ChallengeRow } from '../../src/verify/verify.table.js';

/** A testnet wallet with a fresh random key (multisig types are 2-of-3). */
export function testnetWallet(type: WalletType): TestWallet {
  return makeWallet(type, 'testnet');
}

/** The sandbox wallet's key at a receive index, as a signing wallet (P2WPKH, testnet). */
export function sandboxSigner(index = 0): TestWallet {
  return singleKeyWallet(sandboxWallet().privateKey('receive', index), 'p2wpkh', 'testnet');
}

/** A challenge for `subject` (address or wallet text), started as the hosted pages would. */
export async function startChallenge(
  deps: ProofDeps,
  scope: Scope,
  accountHolderId: string,
  subject: string,
  origin: ChallengeOrigin = { kind: 'portal' },
): Promise<ChallengeRow> {
  const started = await startSignatureChallenge(deps, { scope, accountHolderId, requesterName: 'Acme Lending', origin }, subject);
  if (!started.ok) throw new Error(`challenge refused: ${started.message}`);
  return started.challenge;
}

/** Proves `wallet` for an account holder end to end through the service; returns the claim row. */
export async function proveWith(deps: ProofDeps, scope: Scope, accountHolderId: string, wallet: TestWallet, origin?: ChallengeOrigin) {
  const challenge = await startChallenge(deps, scope, accountHolderId, wallet.address, origin);
  const outcome = await submitSignature(deps, challenge, signMessage(wallet, challenge.message));
  if (!outcome.ok) throw new Error(`proof refused: ${JSON.stringify(outcome)}`);
  return outcome.claim;
}

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2wpkh } from '@scure/btc-signer';
import { makeWallet, signBip322, signLegacy, type TestWallet, type WalletType } from '../../src/bitcoin/message/fixtures/signers.js';
import { NETWORK_PARAMS } from '../../src/bitcoin/network.js';
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
  const key = sandboxWallet().privateKey('receive', index);
  const pay = p2wpkh(secp256k1.getPublicKey(key, true), NETWORK_PARAMS.testnet);
  return { type: 'p2wpkh', network: 'testnet', address: pay.address as string, script: pay.script, privateKeys: [key] };
}

/** A signature over `message` the way the wallet type is usually signed: legacy for P2PKH, BIP-322 full for multisig, simple otherwise. */
export function signChallenge(wallet: TestWallet, message: string): string {
  if (wallet.type === 'p2pkh') return signLegacy(wallet.privateKeys[0]!, message, 'compressed');
  return signBip322(wallet, message, wallet.type.includes('multi') ? 'full' : 'simple');
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
  const outcome = await submitSignature(deps, challenge, signChallenge(wallet, challenge.message));
  if (!outcome.ok) throw new Error(`proof refused: ${JSON.stringify(outcome)}`);
  return outcome.claim;
}

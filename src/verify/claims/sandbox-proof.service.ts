import { canSignWithSandboxWallet, signWithSandboxWallet } from '../../bitcoin/sandbox/sandbox-signer.js';
import { signingAddressOf } from './proof-target.js';
import { submitSignature, type FinishOptions, type ProofDeps, type SubmitOutcome } from './proof.service.js';
import type { ChallengeRow } from '../verify.table.js';

export type SandboxSignOutcome = SubmitOutcome | { ok: false; reason: 'sandbox_cannot_sign'; message: string };

/**
 * Test mode: the sandbox wallet signs the challenge and the signature is checked as a pasted one
 * would be — the proof page's "Sign with the sandbox wallet" and the session test helper. Its keys
 * are public, so it never signs a live-mode challenge.
 */
export async function proveWithSandboxWallet(
  deps: ProofDeps,
  challenge: ChallengeRow,
  options: FinishOptions = {},
): Promise<SandboxSignOutcome> {
  if (challenge.mode !== 'test')
    return { ok: false, reason: 'sandbox_cannot_sign', message: 'The sandbox wallet signs test-mode challenges only.' };
  const signed = signWithSandboxWallet(challenge.signing_address, challenge.message);
  if (!signed.ok) return cannotSign(signed.reason);
  return submitSignature(deps, challenge, signed.signature, options);
}

/**
 * Whether {@link proveWithSandboxWallet} can prove `subject` (an address, extended public key or
 * descriptor of test mode): the sandbox wallet holds the key its proof signs with. Asked before
 * anything is written, so a request that cannot finish changes nothing.
 */
export function sandboxCanProve(subject: string): { ok: true } | { ok: false; message: string } {
  const signing = signingAddressOf(subject, 'test');
  if (!signing.ok) return signing;
  const can = canSignWithSandboxWallet(signing.address);
  return can.ok ? can : cannotSign(can.reason);
}

function cannotSign(reason: string) {
  return { ok: false, reason: 'sandbox_cannot_sign', message: `The sandbox wallet cannot sign this: ${reason}.` } as const;
}

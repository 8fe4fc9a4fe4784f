import { verifyMessage, type VerificationResult } from '../../bitcoin/message/verify-message.js';

/** Why a pasted signature does not prove the challenge, in words a person can act on. */
export type SignatureProblem =
  | { kind: 'unreadable'; message: string }
  | { kind: 'wrong_message'; message: string }
  | { kind: 'wrong_address'; message: string }
  | { kind: 'unsupported'; message: string };

/**
 * The message as wallets commonly alter it when it is pasted or typed: Windows line endings, an
 * extra line at the end, spaces around it. If the signature verifies over one of these, the
 * person signed almost the right text — the most common real failure, worth naming exactly.
 */
function alteredMessages(message: string): { text: string; what: string }[] {
  const crlf = message.replace(/\n/g, '\r\n');
  return [
    { text: `${message}\n`, what: 'with an extra line break at the end' },
    { text: `${message}\r\n`, what: 'with an extra line break at the end' },
    { text: crlf, what: 'with Windows line endings (\\r\\n) instead of \\n' },
    { text: `${crlf}\r\n`, what: 'with Windows line endings and an extra line break at the end' },
    { text: message.trim(), what: 'without its surrounding spaces' },
    {
      text: message
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n'),
      what: 'with spaces removed at line ends',
    },
  ].filter(({ text }) => text !== message);
}

/**
 * Explains a signature that did not verify for (address, message). Runs a few extra verifications
 * only on failure, so a valid signature costs one check.
 */
export function diagnoseSignature(address: string, message: string, signature: string, verdict: VerificationResult): SignatureProblem {
  // The verifier's reason is its own sentence before the advice: wrapped in a sentence of ours it
  // would say the same thing twice ("not a signature we can read (… not valid base64 (…))").
  const why = sentence(verdict.reason ?? 'the signature does not verify');
  if (verdict.format === null) {
    return { kind: 'unreadable', message: `${why} Paste only the signature your wallet showed: base64 text, usually ending in “=”.` };
  }
  for (const altered of alteredMessages(message)) {
    if (verifyMessage({ address, message: altered.text, signature }).valid) {
      return {
        kind: 'wrong_message',
        message: `Your wallet signed the message ${altered.what}. Copy the message with the Copy button and sign it exactly as shown, then paste the new signature.`,
      };
    }
  }
  // Read from the verdict's fields, not its wording: a legacy address has no witness, so it cannot
  // sign BIP-322 simple — its wallet signs it in the legacy format.
  if (verdict.format === 'bip322-simple' && verdict.address_type === 'p2pkh') {
    return {
      kind: 'unsupported',
      message: `The address ${address} is a legacy address: sign the message with your wallet’s ordinary “sign message” (the legacy format, as Bitcoin Core’s signmessage does), not as BIP-322.`,
    };
  }
  return {
    kind: 'wrong_address',
    message: `${why} Sign with the address ${address} in your wallet, and sign the message exactly as shown.`,
  };
}

/** A verifier's reason (a lower-case clause) as a sentence. */
function sentence(reason: string): string {
  return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
}

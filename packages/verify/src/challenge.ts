/** What a challenge is about: one address, or a wallet as an output descriptor. */
export type ChallengeSubject = { type: 'address'; address: string } | { type: 'wallet'; descriptor: string };

/** What a challenge message says. Every field is one `Name: value` line. */
export interface ChallengeText {
  /** The verifier: the service's public base URL. */
  service: string;
  /** Who asks, in words (the client's display name). */
  requester: string;
  accountHolderId: string;
  subject: ChallengeSubject;
  /** For a wallet: the address that signs, and its path from the wallet key. */
  signingAddress: string;
  signingPath: string | null;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
  /** A deposit proof: the exact amount (satoshis) to send, and the service address it goes to. */
  deposit?: { amount: bigint; address: string };
}

const TITLE = 'ownproof ownership proof';

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The text a person signs. It names the verifier, the requester, the account holder, the address or
 * wallet, a random nonce and the validity window, and says in one sentence what signing means, so
 * a signature made here cannot be replayed to another verifier, for another person, or later.
 * Lines end with `\n` only and there is no trailing newline: what wallets sign when the text is
 * pasted as shown (the commonest failure is a pasted extra line end; the checker names it).
 */
export function challengeMessage(text: ChallengeText): string {
  const what = text.subject.type === 'address' ? `the Bitcoin address ${text.subject.address}` : 'the Bitcoin wallet below';
  const sentence = text.deposit
    ? `By sending exactly ${text.deposit.amount} satoshis from ${text.subject.type === 'address' ? 'this address' : 'this wallet'} to ${text.deposit.address} before ${iso(text.expiresAt)}, I show that I control ${what}, and ask ${text.service} to record that for ${text.requester}.`
    : `By signing this message I confirm that I control ${what} and ask ${text.service} to record that for ${text.requester}. It is valid only there, and only until ${iso(text.expiresAt)}.`;
  const lines = [
    TITLE,
    sentence,
    '',
    `Service: ${text.service}`,
    `Requested by: ${text.requester}`,
    `Account holder: ${text.accountHolderId}`,
    ...(text.subject.type === 'address'
      ? [`Address: ${text.subject.address}`]
      : [
          `Wallet: ${text.subject.descriptor}`,
          ...(text.deposit ? [] : [`Signing address: ${text.signingAddress} (path ${text.signingPath})`]),
        ]),
    ...(text.deposit ? [`Deposit: ${text.deposit.amount} sats to ${text.deposit.address}`] : []),
    `Nonce: ${text.nonce}`,
    `Issued at: ${iso(text.issuedAt)}`,
    `Expires at: ${iso(text.expiresAt)}`,
  ];
  return lines.join('\n');
}

/** The `Name: value` fields of a challenge message (first occurrence of each). */
function challengeFields(message: string): Map<string, string> {
  const fields = new Map<string, string>();
  if (!message.startsWith(`${TITLE}\n`)) return fields;
  for (const line of message.split('\n')) {
    const match = /^([A-Z][A-Za-z ]+): (.+)$/.exec(line);
    if (match && !fields.has(match[1] as string)) fields.set(match[1] as string, match[2] as string);
  }
  return fields;
}

/**
 * Why `message` is not a challenge of `service` about `subject`, or undefined when it is one. The
 * receipt checker uses it: a valid signature over some other text proves nothing about this claim.
 */
export function challengeMismatch(message: string, service: string, subject: ChallengeSubject, signingAddress: string): string | undefined {
  const fields = challengeFields(message);
  if (fields.size === 0) return 'the signed message is not an ownproof challenge';
  if (fields.get('Service') !== service) return 'the signed message names another service than the issuer';
  if (subject.type === 'address' && fields.get('Address') !== subject.address) return 'the signed message names another address';
  if (subject.type === 'wallet') {
    if (fields.get('Wallet') !== subject.descriptor) return 'the signed message names another wallet';
    // A deposit names the service address instead: any address of the wallet may pay it.
    if (!fields.has('Deposit') && !fields.get('Signing address')?.startsWith(`${signingAddress} `))
      return 'the signed message names another signing address';
  }
  return undefined;
}

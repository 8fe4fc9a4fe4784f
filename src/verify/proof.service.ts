import type { Transaction } from 'kysely';
import { parseAddress } from '../bitcoin/address.js';
import { chainOnNetwork } from '../bitcoin/chain/on-network.js';
import { deriveWalletAddress, scanWallet, type WalletDescriptor } from '../bitcoin/keys/index.js';
import { verifyMessage } from '../bitcoin/message/verify-message.js';
import type { NetworkName } from '../bitcoin/network.js';
import { modeNetworks, readWalletInput } from '../bitcoin/wallet-input.js';
import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { newId, randomBase62 } from '../platform/crypto/random.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/events/event.service.js';
import type { Scope } from '../platform/scope.js';
import { challengeMessage } from './challenge-message.js';
import { countFailedAttempt, findChallenge, insertChallenge, updateOpenChallenge } from './challenge.repository.js';
import type { ClaimStatement, ClaimSubject } from './claim.schemas.js';
import { insertClaim, upsertGrant } from './claim.repository.js';
import { toClaim } from './claim.service.js';
import { signReceipt } from './receipt.js';
import { diagnoseSignature, type SignatureProblem } from './signature-diagnosis.js';
import { activeSigningKey } from './signing-key.service.js';
import type { ChallengeOrigin, ChallengeRow, ChallengeSubject, ClaimRow } from './verify.table.js';

export type ProofDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'chains'>;

/** How long a challenge can be answered. */
export const CHALLENGE_TTL_SECONDS = 15 * 60;
/** Wrong signatures a challenge takes before it is closed (a fresh one is then needed). */
export const MAX_FAILED_ATTEMPTS = 5;

/** Who asks whom to prove what, and where the claim goes once proven. */
export interface ProofRequest {
  /** The account holder's client and mode. */
  scope: Scope;
  accountHolderId: string;
  /** The requester's display name, written into the message. */
  requesterName: string;
  origin: ChallengeOrigin;
  label?: string | null;
}

export type StartOutcome = { ok: true; challenge: ChallengeRow } | { ok: false; message: string };

/**
 * Issues a signature challenge for an address or a wallet (an xpub or a descriptor: the key of
 * its first receive address signs). Refuses input of the wrong network, private keys and what is
 * not a wallet, in plain words, and refuses when the mode has no chain data to verify against.
 */
export async function startSignatureChallenge(deps: ProofDeps, request: ProofRequest, input: string): Promise<StartOutcome> {
  if (!deps.chains.forMode(request.scope.mode)) {
    return { ok: false, message: 'Ownership cannot be verified in live mode on this server yet: it has no Bitcoin chain data source (ESPLORA_URL).' };
  }
  const target = proofTarget(input, request.scope.mode);
  if (!target.ok) return target;
  const now = unixSeconds(deps.clock);
  const expiresAt = now + CHALLENGE_TTL_SECONDS;
  const message = challengeMessage({
    service: deps.config.publicBaseUrl,
    requester: request.requesterName,
    accountHolderId: request.accountHolderId,
    subject: target.subject,
    signingAddress: target.signingAddress,
    signingPath: target.signingPath,
    nonce: randomBase62(22),
    issuedAt: now,
    expiresAt,
  });
  const challenge: ChallengeRow = {
    seq: 0,
    id: newId('chl'),
    client_id: request.scope.clientId,
    mode: request.scope.mode,
    account_holder_id: request.accountHolderId,
    method: 'signature',
    subject: JSON.stringify(target.subject),
    signing_address: target.signingAddress,
    signing_path: target.signingPath,
    message,
    deposit_address: null,
    deposit_index: null,
    deposit_amount: null,
    status: 'open',
    failed_attempts: 0,
    origin: JSON.stringify(request.origin),
    label: request.label ?? null,
    claim_id: null,
    created_at: now,
    expires_at: expiresAt,
  };
  const { seq: _seq, ...values } = challenge;
  await insertChallenge(deps.db, values);
  return { ok: true, challenge };
}

interface ProofTarget {
  ok: true;
  subject: ChallengeSubject;
  signingAddress: string;
  signingPath: string | null;
  network: NetworkName;
}

/** An address proves itself; a wallet is proven by the key of its first receive address (path 0/0). */
function proofTarget(input: string, mode: Scope['mode']): ProofTarget | { ok: false; message: string } {
  const text = input.trim();
  const address = parseAddress(text);
  if (address.ok) {
    const network = address.address.networks.find((n) => modeNetworks(mode).includes(n));
    if (!network) {
      return { ok: false, message: mode === 'live' ? 'This is a test-network address; live mode needs a mainnet one.' : 'This is a mainnet address; test mode needs a test-network one.' };
    }
    return { ok: true, subject: { type: 'address', address: address.address.address }, signingAddress: address.address.address, signingPath: null, network };
  }
  const read = readWalletInput(text, mode);
  if (!read.ok) return read;
  const signing = deriveWalletAddress(read.wallet, 'receive', 0);
  return { ok: true, subject: { type: 'wallet', descriptor: read.wallet.descriptor }, signingAddress: signing.address, signingPath: '0/0', network: read.wallet.network };
}

/** An open challenge of this account holder, as the pages need it; undefined when there is none. */
export async function findHolderChallenge(deps: Pick<ProofDeps, 'db'>, accountHolderId: string, id: string): Promise<ChallengeRow | undefined> {
  const challenge = await findChallenge(deps.db, id);
  return challenge?.account_holder_id === accountHolderId ? challenge : undefined;
}

export type SubmitOutcome =
  | { ok: true; claim: ClaimRow }
  | { ok: false; reason: 'expired' | 'too_many_attempts' | 'closed' }
  | { ok: false; reason: 'invalid_signature'; problem: SignatureProblem; attemptsLeft: number };

/**
 * Checks a pasted signature against an open challenge. A valid one ends the challenge and makes the
 * claim (signed receipt, grant to the client the origin names, `claim.created`) in one
 * transaction, together with whatever `alsoInTransaction` writes (the connect flow marks its
 * account verified). A wrong one says why and counts against the challenge's five attempts.
 */
export async function submitSignature(
  deps: ProofDeps,
  challenge: ChallengeRow,
  signature: string,
  options: { alsoInTransaction?: (trx: Transaction<Database>, claim: ClaimRow) => Promise<void> } = {},
): Promise<SubmitOutcome> {
  const now = unixSeconds(deps.clock);
  if (challenge.status === 'failed') return { ok: false, reason: 'too_many_attempts' };
  if (challenge.status !== 'open') return { ok: false, reason: 'closed' };
  if (challenge.expires_at <= now) {
    await updateOpenChallenge(deps.db, challenge.id, { status: 'expired' });
    return { ok: false, reason: 'expired' };
  }
  const pasted = signature.trim();
  const verdict = verifyMessage({ address: challenge.signing_address, message: challenge.message, signature: pasted });
  if (!verdict.valid) {
    const failures = await countFailedAttempt(deps.db, challenge.id);
    if (failures === undefined) return { ok: false, reason: 'closed' };
    if (failures >= MAX_FAILED_ATTEMPTS) await updateOpenChallenge(deps.db, challenge.id, { status: 'failed' });
    return { ok: false, reason: 'invalid_signature', problem: diagnoseSignature(challenge.signing_address, challenge.message, pasted, verdict), attemptsLeft: Math.max(0, MAX_FAILED_ATTEMPTS - failures) };
  }
  const claim = await issueClaim(deps, challenge, { format: verdict.format as Exclude<typeof verdict.format, null>, signature: pasted }, verdict.network as NetworkName);
  const committed = await deps.db.transaction().execute(async (trx) => {
    if (!(await updateOpenChallenge(trx, challenge.id, { status: 'used', claim_id: claim.row.id }))) return false;
    await insertClaim(trx, claim.values);
    await shareByOrigin(trx, deps, challenge, claim.row);
    await options.alsoInTransaction?.(trx, claim.row);
    return true;
  });
  // Answered twice at once: the other request made the claim.
  if (!committed) return { ok: false, reason: 'closed' };
  return { ok: true, claim: claim.row };
}

/**
 * Builds the claim of a proven challenge: the chain tip it was verified at, for a wallet the
 * addresses in use (gap-limit scan), the statement and its signed receipt.
 */
async function issueClaim(
  deps: ProofDeps,
  challenge: ChallengeRow,
  proof: { format: ClaimStatement['proof']['format']; signature?: string; txid?: string },
  addressNetwork: NetworkName,
): Promise<{ row: ClaimRow; values: Omit<ClaimRow, 'seq'> }> {
  const chainSource = deps.chains.forMode(challenge.mode);
  if (!chainSource) throw new Error(`no chain source in ${challenge.mode} mode`);
  const asked = JSON.parse(challenge.subject) as ChallengeSubject;
  const network = networkOf(asked, challenge.signing_address, addressNetwork);
  const chain = chainOnNetwork(chainSource, network);
  const tip = await chain.getTip();
  let subject: ClaimSubject;
  let addresses: string[];
  let addressType: string;
  if (asked.type === 'address') {
    subject = asked;
    addresses = [asked.address];
    const parsed = parseAddress(asked.address);
    addressType = parsed.ok ? parsed.address.type : 'unknown';
  } else {
    const wallet = (readWalletInput(asked.descriptor, challenge.mode) as { ok: true; wallet: WalletDescriptor }).wallet;
    const scan = await scanWallet(chain, wallet);
    subject = { type: 'wallet', descriptor: asked.descriptor, addresses_derived_to: { receive: scan.receive.scanned, change: scan.change?.scanned ?? 0 } };
    addresses = scan.used.map((u) => u.address);
    addressType = wallet.addressType;
  }
  const now = unixSeconds(deps.clock);
  const statement: ClaimStatement = {
    id: newId('clm'),
    account_holder_id: challenge.account_holder_id,
    subject,
    address_type: addressType,
    network,
    label: challenge.label,
    proof: {
      format: proof.format,
      message: challenge.message,
      address: challenge.signing_address,
      ...(proof.signature === undefined ? {} : { signature: proof.signature }),
      ...(proof.txid === undefined ? {} : { txid: proof.txid }),
      ...(challenge.signing_path === null ? {} : { signed_path: challenge.signing_path }),
    },
    verified_at: now,
    chain: { height: tip.height, block_hash: tip.hash },
    livemode: challenge.mode === 'live',
  };
  const key = await activeSigningKey(deps);
  const receipt = await signReceipt(key, { iss: deps.config.publicBaseUrl, claim: statement });
  const values: Omit<ClaimRow, 'seq'> = {
    id: statement.id,
    client_id: challenge.client_id,
    mode: challenge.mode,
    account_holder_id: challenge.account_holder_id,
    statement: JSON.stringify(statement),
    addresses: JSON.stringify(addresses),
    status: 'active',
    receipt,
    signing_key_id: key.kid,
    created_at: now,
    updated_at: now,
    revoked_at: null,
  };
  return { row: { seq: 0, ...values }, values };
}

/** The network of the claim: the wallet's, or the address's among those the mode allows. */
function networkOf(subject: ChallengeSubject, signingAddress: string, verified: NetworkName): NetworkName {
  if (subject.type === 'wallet') {
    const parsed = parseAddress(signingAddress);
    return parsed.ok ? (parsed.address.networks[0] as NetworkName) : verified;
  }
  return verified;
}

/**
 * A claim proven in a connect session is shared with that session's client: `balances` if the
 * session asked for balances, `statements` if it asked for transactions (a statement is a claim's
 * transaction history). docs/verify.md, "Sharing".
 */
async function shareByOrigin(trx: Transaction<Database>, deps: Pick<ProofDeps, 'clock'>, challenge: ChallengeRow, claim: ClaimRow): Promise<void> {
  const origin = JSON.parse(challenge.origin) as ChallengeOrigin;
  if (origin.kind !== 'connect_session') return;
  const permissions = [
    ...(origin.permissions.includes('balances') ? ['balances'] : []),
    ...(origin.permissions.includes('transactions') ? ['statements'] : []),
  ];
  const now = unixSeconds(deps.clock);
  await upsertGrant(trx, {
    client_id: challenge.client_id,
    mode: challenge.mode,
    claim_id: claim.id,
    permissions: JSON.stringify(permissions),
    source: `connect_session:${origin.session_id}`,
    created_at: now,
    revoked_at: null,
  });
  const scope: Scope = { clientId: challenge.client_id, mode: challenge.mode };
  await recordEvent({ db: trx, clock: deps.clock }, scope, 'claim.created', toClaim(claim));
}

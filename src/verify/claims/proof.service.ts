import type { Transaction } from 'kysely';
import { parseAddress } from '../../bitcoin/address.js';
import { chainOnNetwork } from '../../bitcoin/chain/on-network.js';
import { deriveWalletAddress, scanWallet, type WalletDescriptor, type WalletScan } from '../../bitcoin/keys/index.js';
import { verifyMessage } from '../../bitcoin/message/verify-message.js';
import type { NetworkName } from '../../bitcoin/network.js';
import { modeNetworks, readWalletInput } from '../../bitcoin/wallet-input.js';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { randomInt } from 'node:crypto';
import { newId, randomBase62 } from '../../platform/crypto/random.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { Database } from '../../platform/db/schema.js';
import type { Scope } from '../../platform/scope.js';
import {
  encodeChallenge,
  countFailedAttempt,
  findChallenge,
  insertChallenge,
  lastDepositIndex,
  updateOpenChallenge,
  challengeOrigin,
  challengeSubject,
} from './challenge.repository.js';
import type { ClaimStatement, ClaimSubject } from './claim.schemas.js';
import { encodeClaim, insertClaim } from './claim.repository.js';
import { challengeMessage } from '@ownproof/verify';
import { proofTarget } from './proof-target.js';
import { signReceipt } from './receipt.js';
import { diagnoseSignature, type SignatureProblem } from './signature-diagnosis.js';
import { activeSigningKey } from './signing-key.service.js';
import type { ChallengeRow, ClaimRow } from '../verify.table.js';
import type { ChallengeOrigin } from './challenge.schemas.js';

export type ProofDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'chains' | 'depositWallets'>;

/** How long a challenge can be answered. */
export const CHALLENGE_TTL_SECONDS = 15 * 60;
/** Wrong signatures a challenge takes before it is closed (a fresh one is then needed). */
export const MAX_FAILED_ATTEMPTS = 5;
/** How long a deposit proof waits for the payment: a day, for hardware wallets and busy people. */
export const DEPOSIT_TTL_SECONDS = 24 * 3600;
/** The amount asked for, drawn per challenge: a few hundred satoshis, above every output type's dust limit. */
const DEPOSIT_SATS = { min: 400, max: 999 };

/** Who asks whom to prove what, and where the claim goes once proven. */
export interface ProofRequest {
  /** The account holder's client and mode. */
  scope: Scope;
  accountHolderId: string;
  /** The requester's display name, written into the message. */
  requesterName: string;
  origin: ChallengeOrigin;
  /** The identity the claim will be bound to (`ClaimTable.controller`): who manages it in the portal. */
  controller: string;
  label?: string | null;
}

export type StartOutcome = { ok: true; challenge: ChallengeRow } | { ok: false; message: string };

/**
 * Issues a signature challenge for an address or a wallet (an xpub or a descriptor: the key of
 * its first receive address signs). Refuses input of the wrong network, private keys and what is
 * not a wallet, in plain words, and refuses when the mode has no chain data to verify against.
 */
export function startSignatureChallenge(deps: ProofDeps, request: ProofRequest, input: string): Promise<StartOutcome> {
  return startChallenge(deps, request, input, 'signature');
}

/**
 * Issues a deposit challenge: the person sends an exact small amount, drawn for this challenge,
 * from the address (or any address of the wallet) to a fresh service address of the mode's
 * deposit wallet within a day. For wallets that cannot sign messages.
 */
export function startDepositChallenge(deps: ProofDeps, request: ProofRequest, input: string): Promise<StartOutcome> {
  return startChallenge(deps, request, input, 'deposit');
}

async function startChallenge(
  deps: ProofDeps,
  request: ProofRequest,
  input: string,
  method: ChallengeRow['method'],
): Promise<StartOutcome> {
  const { mode } = request.scope;
  if (!deps.chains.forMode(mode)) {
    return {
      ok: false,
      message: 'Ownership cannot be verified in live mode on this server yet: it has no Bitcoin chain data source (ESPLORA_URL).',
    };
  }
  const depositWallet = method === 'deposit' ? deps.depositWallets.forMode(mode) : undefined;
  if (method === 'deposit' && !depositWallet) {
    return { ok: false, message: 'This server takes no deposit proofs in live mode (DEPOSIT_XPUB is not set). Sign a message instead.' };
  }
  const target = proofTarget(input, mode);
  if (!target.ok) return target;
  const now = unixSeconds(deps.clock);
  const expiresAt = now + (method === 'deposit' ? DEPOSIT_TTL_SECONDS : CHALLENGE_TTL_SECONDS);
  const amount = BigInt(randomInt(DEPOSIT_SATS.min, DEPOSIT_SATS.max + 1));
  // A deposit address is used once ever: two challenges started at the same moment race for an
  // index, and the unique index (mode, deposit_index) sends the loser to the next one.
  for (let tries = 0; ; tries++) {
    const depositIndex = depositWallet ? (await lastDepositIndex(deps.db, mode)) + 1 : null;
    const deposit =
      depositWallet && depositIndex !== null
        ? { amount, address: deriveWalletAddress(depositWallet, 'receive', depositIndex).address }
        : undefined;
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
      ...(deposit ? { deposit } : {}),
    });
    const challenge: ChallengeRow = {
      seq: 0,
      id: newId('chl'),
      client_id: request.scope.clientId,
      mode,
      account_holder_id: request.accountHolderId,
      method,
      signing_address: target.signingAddress,
      signing_path: deposit ? null : target.signingPath,
      message,
      deposit_address: deposit?.address ?? null,
      deposit_index: depositIndex,
      deposit_amount: deposit ? deposit.amount.toString() : null,
      status: 'open',
      failed_attempts: 0,
      ...encodeChallenge({ subject: target.subject, origin: request.origin }),
      label: request.label ?? null,
      controller: request.controller,
      claim_id: null,
      created_at: now,
      expires_at: expiresAt,
    };
    const { seq: _seq, ...values } = challenge;
    try {
      await insertChallenge(deps.db, values);
      return { ok: true, challenge };
    } catch (error) {
      if (!deposit || !isUniqueViolation(error) || tries >= 5) throw error;
    }
  }
}

/**
 * A challenge started where the pages now are: the same account holder, tenancy, identity and
 * origin (for a connect session, the same session and account). Undefined otherwise, so a
 * challenge answered under another place's URL can never finish as that place's proof (and, in
 * connect, mark another account proven), nor one started by another identity as this one's.
 */
export async function findPlacedChallenge(
  deps: Pick<ProofDeps, 'db'>,
  place: { scope: Scope; accountHolderId: string; origin: ChallengeOrigin; controller: string },
  id: string,
): Promise<ChallengeRow | undefined> {
  const challenge = await findChallenge(deps.db, id);
  if (!challenge || challenge.account_holder_id !== place.accountHolderId || challenge.controller !== place.controller) return undefined;
  if (challenge.client_id !== place.scope.clientId || challenge.mode !== place.scope.mode) return undefined;
  return sameOrigin(challengeOrigin(challenge), place.origin) ? challenge : undefined;
}

function sameOrigin(a: ChallengeOrigin, b: ChallengeOrigin): boolean {
  if (a.kind === 'portal' || b.kind === 'portal') return a.kind === b.kind;
  return a.session_id === b.session_id && a.account_id === b.account_id;
}

export type SubmitOutcome =
  | { ok: true; claim: ClaimRow }
  | { ok: false; reason: 'expired' | 'too_many_attempts' | 'closed' }
  /** A deposit challenge whose payment has not been seen yet. */
  | { ok: false; reason: 'not_paid' }
  | { ok: false; reason: 'invalid_signature'; problem: SignatureProblem; attemptsLeft: number };

/**
 * Checks a pasted signature against an open challenge. A valid one ends the challenge and makes the
 * claim (signed receipt, bound to the challenge's controller) in one transaction, together with
 * whatever `alsoInTransaction` writes (the connect flow records the claim on its account). Nobody
 * else sees the claim yet: it is shared only when the person completes its connect session or
 * approves a request in the portal. A wrong one says why and counts against the challenge's five
 * attempts.
 */
export async function submitSignature(
  deps: ProofDeps,
  challenge: ChallengeRow,
  signature: string,
  options: FinishOptions = {},
): Promise<SubmitOutcome> {
  const now = unixSeconds(deps.clock);
  if (challenge.status === 'failed') return { ok: false, reason: 'too_many_attempts' };
  if (challenge.status !== 'open' || challenge.method !== 'signature') return { ok: false, reason: 'closed' };
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
    return {
      ok: false,
      reason: 'invalid_signature',
      problem: diagnoseSignature(challenge.signing_address, challenge.message, pasted, verdict),
      attemptsLeft: Math.max(0, MAX_FAILED_ATTEMPTS - failures),
    };
  }
  const proof = { format: verdict.format as Exclude<typeof verdict.format, null>, address: challenge.signing_address, signature: pasted };
  return finishProof(deps, challenge, await issueClaim(deps, challenge, proof), options);
}

export interface FinishOptions {
  alsoInTransaction?: (trx: Transaction<Database>, claim: ClaimRow) => Promise<void>;
}

/** Ends the challenge and stores its claim and what the caller adds, in one transaction. */
async function finishProof(
  deps: ProofDeps,
  challenge: ChallengeRow,
  claim: { row: ClaimRow; values: Omit<ClaimRow, 'seq'> },
  options: FinishOptions,
): Promise<SubmitOutcome> {
  const committed = await deps.db.transaction().execute(async (trx) => {
    if (!(await updateOpenChallenge(trx, challenge.id, { status: 'used', claim_id: claim.row.id }))) return false;
    await insertClaim(trx, claim.values);
    await options.alsoInTransaction?.(trx, claim.row);
    return true;
  });
  // Answered twice at once: the other request made the claim.
  if (!committed) return { ok: false, reason: 'closed' };
  return { ok: true, claim: claim.row };
}

/**
 * Looks on chain for the deposit of an open deposit challenge: a transaction (confirmed by the
 * deadline, or still unconfirmed before it) that pays exactly the amount to the challenge's
 * service address and spends an output of the claimed address, or of any address the wallet uses.
 * Spending proves the key as a signature does. Found: the claim, as for a signature; not yet: says
 * so without counting a failed attempt.
 */
export async function checkDeposit(deps: ProofDeps, challenge: ChallengeRow, options: FinishOptions = {}): Promise<SubmitOutcome> {
  const now = unixSeconds(deps.clock);
  if (challenge.method !== 'deposit' || challenge.deposit_address === null || challenge.deposit_amount === null)
    return { ok: false, reason: 'closed' };
  if (challenge.status !== 'open') return { ok: false, reason: 'closed' };
  const source = deps.chains.forMode(challenge.mode);
  if (!source) return { ok: false, reason: 'closed' };
  const subject = challengeSubject(challenge);
  const network = networkOf(challenge);
  const chain = chainOnNetwork(source, network);
  const amount = BigInt(challenge.deposit_amount);
  const history =
    (await chain.getAddressHistory([challenge.deposit_address], { includeMempool: true })).get(challenge.deposit_address) ?? [];
  const inTime = (tx: (typeof history)[number]) =>
    tx.status.confirmed ? tx.status.blockTime <= challenge.expires_at : now <= challenge.expires_at;
  const paid = history.filter((tx) => inTime(tx) && tx.outputs.some((o) => o.address === challenge.deposit_address && o.value === amount));
  if (paid.length > 0) {
    // A wallet is scanned only once a payment of the amount is there (each "check now" would
    // otherwise scan it), and the claim reuses that scan.
    const scan = subject.type === 'wallet' ? await scanWallet(chain, walletOf(subject.descriptor, challenge.mode)) : undefined;
    const payers = new Set(subject.type === 'address' ? [subject.address] : (scan?.used ?? []).map((u) => u.address));
    for (const tx of paid) {
      const payer = tx.inputs.find((input) => input.prevout?.address !== undefined && payers.has(input.prevout.address))?.prevout?.address;
      if (payer === undefined) continue;
      return finishProof(
        deps,
        challenge,
        await issueClaim(deps, challenge, { format: 'deposit', address: payer, txid: tx.txid }, scan),
        options,
      );
    }
  }
  if (challenge.expires_at <= now) {
    await updateOpenChallenge(deps.db, challenge.id, { status: 'expired' });
    return { ok: false, reason: 'expired' };
  }
  return { ok: false, reason: 'not_paid' };
}

/**
 * Builds the claim of a proven challenge: the chain tip it was verified at, for a wallet the
 * addresses in use (gap-limit scan), the statement and its signed receipt.
 */
async function issueClaim(
  deps: ProofDeps,
  challenge: ChallengeRow,
  proof: { format: ClaimStatement['proof']['format']; address: string; signature?: string; txid?: string },
  /** A wallet's gap-limit scan already made for this proof. */
  scanned?: WalletScan,
): Promise<{ row: ClaimRow; values: Omit<ClaimRow, 'seq'> }> {
  const chainSource = deps.chains.forMode(challenge.mode);
  if (!chainSource) throw new Error(`no chain source in ${challenge.mode} mode`);
  const asked = challengeSubject(challenge);
  const network = networkOf(challenge);
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
    const wallet = walletOf(asked.descriptor, challenge.mode);
    const scan = scanned ?? (await scanWallet(chain, wallet));
    subject = {
      type: 'wallet',
      descriptor: asked.descriptor,
      addresses_derived_to: { receive: scan.receive.scanned, change: scan.change?.scanned ?? 0 },
    };
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
      address: proof.address,
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
    controller: challenge.controller,
    ...encodeClaim({ statement, addresses }),
    status: 'active',
    receipt,
    signing_key_id: key.kid,
    created_at: now,
    updated_at: now,
    revoked_at: null,
  };
  return { row: { seq: 0, ...values }, values };
}

/** A stored challenge's or claim's wallet (its descriptor was read when the challenge started). */
export function walletOf(descriptor: string, mode: Scope['mode']): WalletDescriptor {
  const read = readWalletInput(descriptor, mode);
  if (!read.ok) throw new Error(`a stored wallet descriptor no longer reads: ${read.message}`);
  return read.wallet;
}

/** The network of a challenge: its signing address's, among those the mode allows (a wallet's addresses are encoded for its network). */
function networkOf(challenge: ChallengeRow): NetworkName {
  const parsed = parseAddress(challenge.signing_address);
  const network = parsed.ok ? parsed.address.networks.find((n) => modeNetworks(challenge.mode).includes(n)) : undefined;
  if (!network) throw new Error(`challenge ${challenge.id} has a signing address of no network of its mode`);
  return network;
}

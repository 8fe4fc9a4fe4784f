import { signMessage } from '../../bitcoin/message/sign-message.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2ms, p2wsh } from '@scure/btc-signer';
import { withDescriptorChecksum } from '../../bitcoin/keys/index.js';
import { bip32Version } from '../../bitcoin/keys/slip132.js';
import { NETWORK_PARAMS } from '../../bitcoin/network.js';
import { makeWallet, signBip322 } from '../../bitcoin/message/fixtures/signers.js';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { proveWith, sandboxSigner, startChallenge, testnetWallet } from '../../../test/support/verify.js';
import type { Scope } from '../../platform/scope.js';
import type { ClaimStatement } from './claim.schemas.js';
import {
  CHALLENGE_TTL_SECONDS,
  checkDeposit,
  DEPOSIT_TTL_SECONDS,
  MAX_FAILED_ATTEMPTS,
  startDepositChallenge,
  startSignatureChallenge,
  submitSignature,
} from './proof.service.js';
import { createDepositWallets } from './deposit-wallets.js';
import { sandboxPay } from '../../bitcoin/sandbox/sandbox-chain.js';
import type { SimulatedChain } from '../../bitcoin/chain/index.js';
import { checkProof, verifyReceipt } from '@ownproof/verify';
import { publicJwks } from './signing-key.service.js';

describe.each(engines())('proving ownership on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let scope: Scope;
  let holderId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    const holder = await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } });
    holderId = holder.json().id;
  });
  afterAll(() => t.close());

  it.each([
    ['p2wpkh', 'bip322-simple', 'p2wpkh'],
    ['p2tr', 'bip322-simple', 'p2tr'],
    ['p2sh-p2wpkh', 'bip322-simple', 'p2sh'],
    ['p2pkh', 'legacy', 'p2pkh'],
    ['p2wsh-multi', 'bip322-full', 'p2wsh'],
  ] as const)('turns a %s signature into a claim whose receipt anyone can check', async (type, format, addressType) => {
    const wallet = testnetWallet(type);
    const claim = await proveWith(t.ctx, scope, holderId, wallet);
    const statement = JSON.parse(claim.statement) as ClaimStatement;
    expect(statement).toMatchObject({
      id: claim.id,
      account_holder_id: holderId,
      subject: { type: 'address', address: wallet.address },
      address_type: addressType,
      network: 'testnet',
      proof: { format, address: wallet.address },
      livemode: false,
    });
    expect(statement.chain.height).toBeGreaterThan(0);
    expect(statement.chain.block_hash).toMatch(/^[0-9a-f]{64}$/);
    const verdict = await verifyReceipt(claim.receipt, await publicJwks(t.ctx));
    expect(verdict).toMatchObject({ valid: true, issuer: t.ctx.config.publicBaseUrl, claim: statement });
  });

  it('proves a whole wallet from its descriptor with the key of its first receive address', async () => {
    const sandbox = sandboxWallet();
    const challenge = await startChallenge(t.ctx, scope, holderId, sandbox.descriptor);
    expect(challenge.signing_address).toBe(sandbox.address('receive', 0));
    expect(challenge.signing_path).toBe('0/0');
    expect(challenge.message).toContain(`Wallet: ${sandbox.descriptor}\nSigning address: ${sandbox.address('receive', 0)} (path 0/0)`);
    const outcome = await submitSignature(t.ctx, challenge, signMessage(sandboxSigner(0), challenge.message));
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const statement = JSON.parse(outcome.claim.statement) as ClaimStatement;
    expect(statement.subject).toMatchObject({ type: 'wallet' });
    expect(statement.proof).toMatchObject({ format: 'bip322-simple', address: sandbox.address('receive', 0), signed_path: '0/0' });
    // The sandbox wallet used receive 0–5 and change 0–2; the scan looks 20 past the last used address.
    expect(statement.subject.type === 'wallet' && statement.subject.addresses_derived_to).toEqual({ receive: 26, change: 23 });
    const addresses = JSON.parse(outcome.claim.addresses) as string[];
    expect(addresses).toEqual(expect.arrayContaining([sandbox.address('receive', 5), sandbox.address('change', 2)]));
    expect(checkProof(statement, t.ctx.config.publicBaseUrl)).toBeUndefined();
  });

  it('proves a 2-of-3 multisig wallet from its descriptor with a BIP-322 full signature by two cosigners at 0/0', async () => {
    const testnet = bip32Version('test');
    const cosigners = [1, 2, 3].map((n) =>
      HDKey.fromMasterSeed(new Uint8Array(32).fill(n), { public: testnet.publicVersion, private: testnet.privateVersion }),
    );
    const body = `wsh(sortedmulti(2,${cosigners.map((k) => `${k.publicExtendedKey}/<0;1>/*`).join(',')}))`;
    const descriptor = withDescriptorChecksum(body) as string;
    const challenge = await startChallenge(t.ctx, scope, holderId, descriptor);
    expect(challenge.signing_path).toBe('0/0');
    // The receive 0 script: the three cosigners' keys at 0/0, sorted, two of them sign.
    const children = cosigners.map((k) => k.deriveChild(0).deriveChild(0));
    const pubs = children.map((c) => c.publicKey as Uint8Array).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const payment = p2wsh(p2ms(2, pubs), NETWORK_PARAMS.testnet);
    expect(payment.address).toBe(challenge.signing_address);
    const signers = children.filter((c) => c !== children[1]).map((c) => c.privateKey as Uint8Array);
    // Keys in script order, as a finalizer needs them.
    const ordered = signers.sort((a, b) =>
      Buffer.compare(Buffer.from(secp256k1.getPublicKey(a, true)), Buffer.from(secp256k1.getPublicKey(b, true))),
    );
    const wallet = {
      type: 'p2wsh-sortedmulti' as const,
      network: 'testnet' as const,
      address: payment.address as string,
      script: payment.script,
      witnessScript: payment.witnessScript as Uint8Array,
      privateKeys: ordered,
    };
    const outcome = await submitSignature(t.ctx, challenge, signBip322(wallet, challenge.message, 'full'));
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const statement = JSON.parse(outcome.claim.statement) as ClaimStatement;
    expect(statement).toMatchObject({
      address_type: 'p2wsh',
      subject: { type: 'wallet', descriptor },
      proof: { format: 'bip322-full', signed_path: '0/0' },
    });
    expect(checkProof(statement, t.ctx.config.publicBaseUrl)).toBeUndefined();
  });

  it('names a message signed with Windows line endings or an extra line, and counts the attempt', async () => {
    const wallet = testnetWallet('p2wpkh');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    const crlf = await submitSignature(t.ctx, challenge, signMessage(wallet, challenge.message.replace(/\n/g, '\r\n')));
    expect(crlf).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
      attemptsLeft: MAX_FAILED_ATTEMPTS - 1,
      problem: { kind: 'wrong_message' },
    });
    expect(crlf.ok === false && crlf.reason === 'invalid_signature' && crlf.problem.message).toContain('Windows line endings');
    const trailing = await submitSignature(t.ctx, challenge, signMessage(wallet, `${challenge.message}\n`));
    expect(trailing.ok === false && trailing.reason === 'invalid_signature' && trailing.problem.message).toContain(
      'extra line break at the end',
    );
    const right = await submitSignature(t.ctx, challenge, signMessage(wallet, challenge.message));
    expect(right.ok).toBe(true);
  });

  it('says when the signature is another address’s or not a signature at all', async () => {
    const wallet = testnetWallet('p2wpkh');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    const other = await submitSignature(t.ctx, challenge, signMessage(testnetWallet('p2wpkh'), challenge.message));
    expect(other).toMatchObject({ ok: false, problem: { kind: 'wrong_address' } });
    const garbage = await submitSignature(t.ctx, challenge, 'not a signature');
    expect(garbage).toMatchObject({ ok: false, problem: { kind: 'unreadable' } });
  });

  it('closes a challenge after five wrong signatures: the right one is refused then, and a fresh challenge works', async () => {
    const wallet = testnetWallet('p2tr');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    for (let i = 1; i <= MAX_FAILED_ATTEMPTS; i++) {
      const outcome = await submitSignature(t.ctx, challenge, signMessage(wallet, 'something else'));
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid_signature', attemptsLeft: MAX_FAILED_ATTEMPTS - i });
    }
    const closed = await t.ctx.db.selectFrom('verify_challenges').selectAll().where('id', '=', challenge.id).executeTakeFirstOrThrow();
    expect(closed.status).toBe('failed');
    expect(await submitSignature(t.ctx, closed, signMessage(wallet, challenge.message))).toEqual({
      ok: false,
      reason: 'too_many_attempts',
    });
    expect((await proveWith(t.ctx, scope, holderId, wallet)).id).toMatch(/^clm_/);
  });

  it('refuses an answer after the challenge expired', async () => {
    const wallet = testnetWallet('p2wpkh');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    t.clock.advance(CHALLENGE_TTL_SECONDS + 1);
    expect(await submitSignature(t.ctx, challenge, signMessage(wallet, challenge.message))).toEqual({ ok: false, reason: 'expired' });
  });

  it('is single-use: a second answer to a proven challenge makes no second claim', async () => {
    const wallet = testnetWallet('p2wpkh');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    const signature = signMessage(wallet, challenge.message);
    const [first, second] = await Promise.all([submitSignature(t.ctx, challenge, signature), submitSignature(t.ctx, challenge, signature)]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    const claims = await t.ctx.db.selectFrom('verify_claims').select('id').where('account_holder_id', '=', holderId).execute();
    expect(claims.filter((c) => c.id === (first.ok ? first.claim.id : second.ok ? second.claim.id : '')).length).toBe(1);
    expect(await submitSignature(t.ctx, { ...challenge, status: 'used' }, signature)).toEqual({ ok: false, reason: 'closed' });
  });

  it.each([
    ['a mainnet address in test mode', () => makeWallet('p2wpkh', 'mainnet').address, 'test mode needs a test-network one'],
    [
      'a seed phrase',
      () => 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
      'private key or seed phrase',
    ],
    ['text that is no wallet', () => 'my savings', 'not a wallet we can watch'],
  ])('refuses to start a challenge for %s, saying why', async (_name, subject, message) => {
    const outcome = await startSignatureChallenge(
      t.ctx,
      { scope, accountHolderId: holderId, requesterName: 'Acme', origin: { kind: 'portal' }, controller: 'ada@example.com' },
      subject(),
    );
    expect(outcome).toMatchObject({ ok: false, message: expect.stringContaining(message) });
  });

  it('refuses to start a challenge in live mode without a chain data source', async () => {
    const outcome = await startSignatureChallenge(
      t.ctx,
      {
        scope: { ...scope, mode: 'live' },
        accountHolderId: holderId,
        requesterName: 'Acme',
        origin: { kind: 'portal' },
        controller: 'ada@example.com',
      },
      makeWallet('p2wpkh', 'mainnet').address,
    );
    expect(outcome).toMatchObject({ ok: false, message: expect.stringContaining('ESPLORA_URL') });
  });

  it('writes a challenge that names the service, the requester, the holder, the address, a nonce and the window', async () => {
    const wallet = testnetWallet('p2wpkh');
    const challenge = await startChallenge(t.ctx, scope, holderId, wallet.address);
    const lines = challenge.message.split('\n');
    expect(lines[0]).toBe('ownproof ownership proof');
    expect(lines[1]).toBe(
      `By signing this message I confirm that I control the Bitcoin address ${wallet.address} and ask ${t.ctx.config.publicBaseUrl} to record that for Acme Lending. It is valid only there, and only until ${new Date(challenge.expires_at * 1000).toISOString().replace('.000Z', 'Z')}.`,
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        `Service: ${t.ctx.config.publicBaseUrl}`,
        'Requested by: Acme Lending',
        `Account holder: ${holderId}`,
        `Address: ${wallet.address}`,
      ]),
    );
    expect(lines.find((l) => l.startsWith('Nonce: '))).toMatch(/^Nonce: [0-9A-Za-z]{22}$/);
    expect(challenge.message.endsWith('\n')).toBe(false);
    expect(challenge.expires_at - challenge.created_at).toBe(CHALLENGE_TTL_SECONDS);
    const again = await startChallenge(t.ctx, scope, holderId, wallet.address);
    expect(again.message).not.toBe(challenge.message);
  });
});

describe.each(engines())('proving ownership with a deposit on %s', (engine) => {
  let t: TestApp;
  let scope: Scope;
  let holderId: string;
  let chain: SimulatedChain;
  const request = () => ({
    scope,
    accountHolderId: holderId,
    requesterName: 'Acme Lending',
    origin: { kind: 'portal' as const },
    controller: 'ada@example.com',
  });

  beforeAll(async () => {
    t = await startTestApp(engine);
    const client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
    chain = t.ctx.chains.forMode('test') as SimulatedChain;
  });
  afterAll(() => t.close());

  /** An address with coins on the sandbox chain, whose key the chain holds (so it can pay). */
  function fundedAddress(): string {
    const wallet = testnetWallet('p2wpkh');
    chain.registerKey(wallet.privateKeys[0] as Uint8Array);
    chain.fund(wallet.address, 100_000n);
    return wallet.address;
  }

  async function depositChallenge(subject: string) {
    const started = await startDepositChallenge(t.ctx, request(), subject);
    if (!started.ok) throw new Error(started.message);
    return started.challenge;
  }

  it('asks for a few hundred satoshis to a fresh service address, and says so in the message', async () => {
    const address = fundedAddress();
    const first = await depositChallenge(address);
    const second = await depositChallenge(address);
    for (const challenge of [first, second]) {
      expect(Number(challenge.deposit_amount)).toBeGreaterThanOrEqual(400);
      expect(Number(challenge.deposit_amount)).toBeLessThanOrEqual(999);
      expect(challenge.message).toContain(`Deposit: ${challenge.deposit_amount} sats to ${challenge.deposit_address}`);
      expect(challenge.expires_at - challenge.created_at).toBe(DEPOSIT_TTL_SECONDS);
    }
    expect(second.deposit_address).not.toBe(first.deposit_address);
    expect(second.deposit_index).toBe((first.deposit_index as number) + 1);
  });

  it('makes a deposit claim once the exact amount arrives from the address, and not before', async () => {
    const address = fundedAddress();
    const challenge = await depositChallenge(address);
    expect(await checkDeposit(t.ctx, challenge)).toEqual({ ok: false, reason: 'not_paid' });
    // The wrong amount, and the right amount from another address, prove nothing.
    chain.spend(address, challenge.deposit_address as string, BigInt(challenge.deposit_amount as string) + 1n);
    const stranger = fundedAddress();
    chain.spend(stranger, challenge.deposit_address as string, BigInt(challenge.deposit_amount as string));
    expect(await checkDeposit(t.ctx, challenge)).toEqual({ ok: false, reason: 'not_paid' });
    const paid = sandboxPay(chain, address, challenge.deposit_address as string, BigInt(challenge.deposit_amount as string), t.clock);
    if (!paid.ok) throw new Error(paid.reason);
    const outcome = await checkDeposit(t.ctx, challenge);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const statement = JSON.parse(outcome.claim.statement) as ClaimStatement;
    expect(statement.proof).toMatchObject({ format: 'deposit', address, txid: paid.txid });
    expect(statement.proof.signature).toBeUndefined();
    const verdict = await verifyReceipt(outcome.claim.receipt, await publicJwks(t.ctx));
    expect(verdict.valid).toBe(true);
  });

  it('proves a wallet with a deposit from any of its addresses', async () => {
    const sandbox = sandboxWallet();
    const challenge = await depositChallenge(sandbox.descriptor);
    const paid = sandboxPay(
      chain,
      sandbox.address('receive', 4),
      challenge.deposit_address as string,
      BigInt(challenge.deposit_amount as string),
      t.clock,
    );
    if (!paid.ok) throw new Error(paid.reason);
    const outcome = await checkDeposit(t.ctx, challenge);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    const statement = JSON.parse(outcome.claim.statement) as ClaimStatement;
    expect(statement.subject.type).toBe('wallet');
    expect(statement.proof).toMatchObject({ format: 'deposit', address: sandbox.address('receive', 4) });
  });

  it('ends the deposit request after a day without the payment', async () => {
    const challenge = await depositChallenge(fundedAddress());
    t.clock.advance(DEPOSIT_TTL_SECONDS + 1);
    expect(await checkDeposit(t.ctx, challenge)).toEqual({ ok: false, reason: 'expired' });
  });

  it('takes no deposit proofs in live mode without DEPOSIT_XPUB, and refuses a DEPOSIT_XPUB that is not a mainnet key', async () => {
    const live = await startDepositChallenge(
      t.ctx,
      { ...request(), scope: { ...scope, mode: 'live' } },
      makeWallet('p2wpkh', 'mainnet').address,
    );
    expect(live).toMatchObject({ ok: false });
    expect(() => createDepositWallets(sandboxWallet().tpub)).toThrow(/DEPOSIT_XPUB must be a mainnet extended public key/);
    expect(() => createDepositWallets('hello')).toThrow(/DEPOSIT_XPUB/);
  });
});

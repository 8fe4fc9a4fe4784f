import { describe, expect, it } from 'vitest';
import { signMessage } from '../../bitcoin/message/sign-message.js';
import { verifyMessage } from '../../bitcoin/message/verify-message.js';
import { testnetWallet } from '../../../test/support/verify.js';
import { diagnoseSignature } from './signature-diagnosis.js';

describe('explaining a signature that does not prove the challenge', () => {
  const message = 'ownproof ownership proof\nline two';
  const diagnose = (address: string, signature: string) =>
    diagnoseSignature(address, message, signature, verifyMessage({ address, message, signature }));

  it('tells a legacy address to sign in the legacy format when it was signed as BIP-322 simple', () => {
    const legacy = testnetWallet('p2pkh');
    const simple = signMessage(testnetWallet('p2wpkh'), message);
    const problem = diagnose(legacy.address, simple);
    expect(problem.kind).toBe('unsupported');
    expect(problem.message).toContain('legacy format');
    expect(problem.message).not.toContain('deposit');
  });

  it('names the key of another address, and a message signed with Windows line endings', () => {
    const wallet = testnetWallet('p2wpkh');
    expect(diagnose(wallet.address, signMessage(testnetWallet('p2wpkh'), message)).kind).toBe('wrong_address');
    expect(diagnose(wallet.address, signMessage(wallet, message.replace(/\n/g, '\r\n')))).toMatchObject({
      kind: 'wrong_message',
      message: expect.stringContaining('Windows line endings'),
    });
  });

  it('says what it cannot read', () => {
    expect(diagnose(testnetWallet('p2wpkh').address, 'not base64 at all!').kind).toBe('unreadable');
  });

  // Each message is one statement and advice: the verifier's reason is not wrapped in a second
  // sentence that says the same, nor its own parenthesis in another.
  it('says a signature of the wrong length is not base64, once, without nesting', () => {
    expect(diagnose(testnetWallet('p2wpkh').address, 'abcde').message).toBe(
      'The signature is not valid base64: its length is not a multiple of 4. Paste only the signature your wallet showed: base64 text, usually ending in “=”.',
    );
  });

  it('says a legacy signature by another key does not match, once, without nesting', () => {
    const legacy = testnetWallet('p2pkh');
    expect(diagnose(legacy.address, signMessage(testnetWallet('p2pkh'), message)).message).toBe(
      `The signature was made by another key or over another message. Sign with the address ${legacy.address} in your wallet, and sign the message exactly as shown.`,
    );
  });
});

/** Message-signature verification (BIP-322 and legacy signmessage). See README.md for the policy. */
export {
  verifyMessage,
  MAX_SIGNATURE_LENGTH,
  type MessageSignatureFormat,
  type ProvenOutput,
  type VerificationResult,
  type VerifyMessageInput,
  type VerifyMessageOptions,
} from './verify-message.js';
export { bip322MessageHash, MAX_PROOF_INPUTS } from './bip322.js';
export { signMessageHash } from './legacy.js';
export { SECP256K1_BACKEND } from './secp256k1.js';

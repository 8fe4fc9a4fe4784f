import { existsSync } from 'node:fs';
import type { Ownproof } from '../../packages/sdk/src/index.js';

/** Debian's Chromium, or another through CHROMIUM_PATH, for `--browser`. The demo never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumPresent(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** The documented sandbox wallet (docs/sandbox.md), as a person pastes it into the wallet form. */
export const SANDBOX_WALLET_DESCRIPTOR =
  'wpkh([73c5da0a/84h/1h/0h]tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/<0;1>/*)#lxek0ef2';

/**
 * Whoever plays the account holder in the demo: the API's test helpers, or a browser on the
 * hosted pages and the portal. Either way the person connects the Sandbox Exchange (`user_good`)
 * and the sandbox wallet, proves the wallet, and later shares its claim.
 */
export interface AccountHolder {
  /** How the steps read in the demo's output ("by the test helper", "in Chromium"). */
  readonly how: string;
  completeSession(session: { id: string; hosted_url: string | null }): Promise<void>;
  approveAccessRequest(request: { id: string }, email: string): Promise<void>;
  close(): Promise<void>;
}

/** The test helpers (docs/sandbox.md, "Test helpers"): no browser, no mailbox. */
export function testHelperHolder(ownproof: Ownproof): AccountHolder {
  return {
    how: 'by the test helper',
    async completeSession(session) {
      await ownproof.testHelpers.connect.sessions.complete(session.id, {
        exchange_logins: [{ username: 'user_good' }],
        wallets: [{ wallet: SANDBOX_WALLET_DESCRIPTOR, prove_ownership: true }],
      });
    },
    async approveAccessRequest(request) {
      await ownproof.testHelpers.verify.accessRequests.approve(request.id);
    },
    async close() {},
  };
}

import { html, type SafeHtml } from '../../../platform/web/html.js';

/**
 * How to sign the challenge in the wallets people use, in a few accurate steps each. Where a
 * wallet cannot sign for the address type at all, it says so rather than leave the person trying.
 */
export function walletInstructions(addressType: string | null): SafeHtml {
  const segwitOrTaproot = addressType !== 'p2pkh';
  const entries: { name: string; steps: SafeHtml }[] = [
    {
      name: 'Sparrow',
      steps: html`<ol>
<li>Open the wallet, go to <strong>Addresses</strong>, right-click the address above and choose <strong>Sign/Verify Message</strong> (or use <strong>Tools → Sign/Verify Message</strong> and pick the address).</li>
<li>Paste the message exactly. If Sparrow offers a format, choose <strong>BIP322</strong>; otherwise keep the standard one.</li>
<li>Choose <strong>Sign Message</strong> and copy the signature.</li>
</ol>`,
    },
    {
      name: 'Electrum',
      steps: html`<ol>
<li>Open the <strong>Addresses</strong> tab, right-click the address above and choose <strong>Sign/verify message</strong>.</li>
<li>Paste the message exactly, choose <strong>Sign</strong> and copy the signature.</li>
</ol>
<p class="hint">Electrum signs legacy, wrapped-segwit and native-segwit (P2PKH, P2SH-P2WPKH, P2WPKH) addresses.</p>`,
    },
    {
      name: 'Bitcoin Core',
      steps: segwitOrTaproot
        ? html`<p>Bitcoin Core’s <code>signmessage</code> signs for legacy (P2PKH, addresses starting with 1, m or n) addresses only; it cannot sign for this address. Use another wallet holding the same keys, such as Sparrow with your descriptor.</p>`
        : html`<ol>
<li>In <strong>Window → Console</strong> (or with <code>bitcoin-cli</code>), run <code>signmessage "ADDRESS" "MESSAGE"</code> with the address above and the message, keeping its line breaks (in a shell: <code>bitcoin-cli signmessage "ADDRESS" "$(cat message.txt)"</code> with the message saved in message.txt).</li>
<li>Copy the signature it prints.</li>
</ol>`,
    },
    {
      name: 'Trezor Suite',
      steps: html`<ol>
<li>Open the account, choose <strong>⋯ → Sign &amp; verify</strong>, and pick the address above.</li>
<li>Paste the message exactly, choose <strong>Sign</strong>, confirm on your Trezor and copy the signature.</li>
</ol>`,
    },
    {
      name: 'Ledger',
      steps: html`<p>Ledger Live cannot sign messages. Connect your Ledger to <strong>Sparrow</strong> (it works with the same accounts) and sign there as described above; confirm on the device.</p>`,
    },
    {
      name: 'Browser wallets (Unisat, Xverse, Leather)',
      steps: html`<p>These wallets sign when a website asks them to. With the wallet installed in this browser, a “Sign with …” button appears above the signature box: it asks the wallet to sign the message with the address above (you confirm in the wallet) and checks the signature at once. Otherwise use the wallet’s “sign message” screen and paste the signature.</p>`,
    },
  ];
  return html`<div class="disclosures">
${entries.map((entry) => html`<details class="disclosure"><summary>${entry.name}</summary>${entry.steps}</details>`)}
</div>`;
}

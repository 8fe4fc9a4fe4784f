// Progressive enhancement of the proof pages: "Sign with <wallet>" for browser wallets that put a
// provider on the page (Unisat, Leather, Xverse). The button stays hidden without one, and the page
// works without this script: the person pastes a signature made anywhere.
// <div hidden><button data-wallet-sign="MESSAGE_ID" data-wallet-address="ADDRESS" data-wallet-type="p2wpkh"
//   data-wallet-target="SIGNATURE_ID" hidden></div> and <p data-wallet-status hidden> on the page.
'use strict';
(() => {
  const button = document.querySelector('button[data-wallet-sign]');
  const status = document.querySelector('[data-wallet-status]');
  if (!button || !status) return;
  const message = document.getElementById(button.dataset.walletSign);
  const target = document.getElementById(button.dataset.walletTarget);
  const { walletAddress: address, walletType: type } = button.dataset;
  if (!message || !target || !address) return;

  const providers = [
    {
      name: 'Unisat',
      provider: () => window.unisat,
      async sign(unisat, text) {
        const accounts = await unisat.requestAccounts();
        if (!accounts.includes(address))
          throw new Error(`Unisat is on another address (${accounts[0] ?? 'none'}). Switch to ${address} in Unisat, then try again.`);
        // Unisat signs legacy addresses in the Bitcoin Core format, the others with BIP-322.
        return unisat.signMessage(text, type === 'p2pkh' ? 'ecdsa' : 'bip322-simple');
      },
    },
    {
      name: 'Leather',
      provider: () => window.LeatherProvider,
      async sign(leather, text) {
        const response = await leather.request('signMessage', { message: text, paymentType: type === 'p2tr' ? 'p2tr' : 'p2wpkh' });
        if (response.result.address && response.result.address !== address)
          throw new Error(`Leather signed with ${response.result.address}, not ${address}.`);
        return response.result.signature;
      },
    },
    {
      name: 'Xverse',
      provider: () => window.XverseProviders && window.XverseProviders.BitcoinProvider,
      async sign(xverse, text) {
        const response = await xverse.request('signMessage', { address, message: text, protocol: 'BIP322' });
        if (response.error) throw new Error(response.error.message || 'Xverse did not sign.');
        return response.result.signature;
      },
    },
  ];
  const wallet = providers.find((p) => p.provider());
  if (!wallet) return;
  button.textContent = `Sign with ${wallet.name}`;
  button.hidden = false;
  // The button's row is hidden too, so a page without a wallet keeps no empty space.
  if (button.parentElement) button.parentElement.hidden = false;

  const say = (text) => {
    status.textContent = text;
    status.hidden = false;
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    say(`Confirm the signature in ${wallet.name}…`);
    try {
      const signature = await wallet.sign(wallet.provider(), message.value ?? message.textContent);
      if (typeof signature !== 'string' || signature === '') throw new Error(`${wallet.name} returned no signature.`);
      target.value = signature;
      say(`Signed by ${wallet.name}. Checking the signature…`);
      target.form.requestSubmit();
    } catch (error) {
      say(`${wallet.name} did not sign: ${error && error.message ? error.message : error}. You can still paste a signature below.`);
      button.disabled = false;
    }
  });
})();

import type { components } from '@ownproof/sdk';
import type { Application } from './applications.js';

type Account = components['schemas']['Account'];
type Balance = components['schemas']['Balance'];
type Statement = components['schemas']['Statement'];

/** Text made safe to put in HTML (element content and quoted attribute values). */
function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Northwind Loans</title>
<style>
  body { font: 17px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #f6f7f9; }
  header, main { max-width: 44rem; margin: 0 auto; padding: 1rem 1.25rem; }
  header { font-weight: 700; }
  h1 { font-size: 1.6rem; line-height: 1.25; }
  section { background: #fff; border: 1px solid #d5d9e0; border-radius: 8px; padding: 0.25rem 1.25rem 1rem; margin: 1rem 0; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { font: inherit; width: 100%; box-sizing: border-box; padding: 0.6rem; border: 1px solid #6b7280; border-radius: 6px; }
  button, .button { display: inline-block; font: inherit; font-weight: 600; margin-top: 1rem; padding: 0.7rem 1.2rem; min-height: 44px;
    box-sizing: border-box; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; text-decoration: none; cursor: pointer; }
  a { color: #1d4ed8; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 0.35rem 0.5rem 0.35rem 0; border-bottom: 1px solid #e5e7eb; }
  td.amount { font-variant-numeric: tabular-nums; }
  .muted { color: #4b5563; }
  .badge { font-size: 0.85rem; font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 999px; background: #dcfce7; color: #14532d; }
</style>
</head>
<body>
<header>Northwind Loans</header>
<main>
${body}
</main>
</body>
</html>`;
}

/** The applicant's first page: who they are, then off to ownproof to connect their accounts. */
export function applyPage(error?: string): string {
  return layout(
    'Apply for a loan',
    `<h1>Apply for a loan</h1>
<p>To decide on your application we look at your crypto balances and your Bitcoin wallet’s history. You connect them on a secure page of ownproof; you choose what to share.</p>
${error ? `<p role="alert"><strong>${esc(error)}</strong></p>` : ''}
<form method="post" action="/applications">
<label for="name">Your name</label>
<input id="name" name="name" autocomplete="name" required>
<label for="email">Your e-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Connect your accounts</button>
</form>`,
  );
}

export interface ApplicationView {
  application: Application;
  accounts: { account: Account; balances: Balance[] }[];
  statement: Statement | null;
}

/** Everything the lender knows of one application, read from ownproof when the page is asked for. */
export function applicationPage({ application, accounts, statement }: ApplicationView): string {
  const a = application;
  const check = `<p><a class="button" href="/applications/${esc(a.id)}">Check again</a></p>`;
  return layout(
    `Application of ${a.name}`,
    `<h1>Application of ${esc(a.name)}</h1>
<p class="muted">${esc(a.email)} · ownproof account holder ${esc(a.accountHolderId)}</p>

<section aria-labelledby="accounts">
<h2 id="accounts">Connected accounts</h2>
${a.sessionStatus === 'completed' ? accountsTable(accounts) : a.sessionStatus === 'abandoned' ? '<p>The applicant cancelled connecting their accounts.</p>' : `<p>Waiting for the applicant to connect their accounts.</p>${check}`}
</section>

${a.sessionStatus === 'completed' ? statementSection(a, statement, check) : ''}

<section aria-labelledby="events">
<h2 id="events">Webhooks received</h2>
${a.events.length === 0 ? '<p class="muted">None yet.</p>' : `<ul>${a.events.map((e) => `<li><code>${esc(e.type)}</code> at ${esc(e.at.toISOString())}</li>`).join('')}</ul>`}
</section>`,
  );
}

function accountsTable(accounts: ApplicationView['accounts']): string {
  if (accounts.length === 0) return '<p>No accounts.</p>';
  return accounts
    .map(
      ({
        account,
        balances,
      }) => `<h3>${esc(account.display_name)} ${account.ownership.status === 'verified' ? '<span class="badge">Ownership proven</span>' : ''}</h3>
${
  account.balance_refresh?.status === 'succeeded'
    ? `<table><caption class="muted">Balances of ${esc(account.display_name)}</caption><thead><tr><th scope="col">Asset</th><th scope="col">Total</th><th scope="col">Available</th></tr></thead><tbody>
${balances.map((b) => `<tr><td>${esc(b.asset)}</td><td class="amount">${esc(b.total)}</td><td class="amount">${esc(b.available)}</td></tr>`).join('\n')}
</tbody></table>`
    : `<p>${account.balance_refresh?.status === 'failed' ? esc(account.balance_refresh.error?.message ?? 'The balances could not be read.') : 'Reading the balances…'}</p>`
}`,
    )
    .join('\n');
}

function statementSection(a: Application, statement: Statement | null, check: string): string {
  let body: string;
  if (a.accessRequestId === null) {
    body = `<p>Ask ${esc(a.name)} to share proof of their Bitcoin wallet, for a statement of its last twelve months.</p>
<form method="post" action="/applications/${esc(a.id)}/access-request"><button type="submit">Ask for a wallet statement</button></form>`;
  } else if (a.accessStatus === 'pending') {
    body = `<p role="status">We asked ${esc(a.email)} by e-mail to approve sharing their wallet (access request ${esc(a.accessRequestId)}).</p>${check}`;
  } else if (a.accessStatus !== 'granted') {
    body = `<p>The request is ${esc(a.accessStatus ?? 'unknown')}.</p>`;
  } else if (statement?.status === 'completed' && statement.summary) {
    const s = statement.summary;
    body = `<p role="status">Statement ${esc(statement.id)} is ready.</p>
<table><caption class="muted">Summary of the last twelve months</caption><tbody>
<tr><th scope="row">Opening balance</th><td class="amount">${btc(s.opening_balance)}</td></tr>
<tr><th scope="row">Received</th><td class="amount">${btc(s.total_in)}</td></tr>
<tr><th scope="row">Sent</th><td class="amount">${btc(s.total_out)}</td></tr>
<tr><th scope="row">Fees</th><td class="amount">${btc(s.total_fees)}</td></tr>
<tr><th scope="row">Closing balance</th><td class="amount">${btc(s.closing_balance)}</td></tr>
<tr><th scope="row">Transactions</th><td class="amount">${esc(s.transaction_count)}</td></tr>
</tbody></table>
<p><a class="button" href="/applications/${esc(a.id)}/statement.pdf">Download the statement (PDF)</a></p>`;
  } else if (statement?.status === 'failed') {
    body = '<p>The statement could not be made.</p>';
  } else {
    body = `<p role="status">The applicant approved. The statement is being prepared.</p>${check}`;
  }
  return `<section aria-labelledby="statement">
<h2 id="statement">Wallet statement</h2>
${body}
</section>`;
}

/** Satoshis (decimal text) as BTC, exactly. */
function btc(sats: string): string {
  const negative = sats.startsWith('-');
  const digits = (negative ? sats.slice(1) : sats).padStart(9, '0');
  return `${negative ? '−' : ''}${digits.slice(0, -8)}.${digits.slice(-8)} BTC`;
}

export function notFoundPage(): string {
  return layout('Not found', '<h1>Not found</h1><p><a class="button" href="/">Start an application</a></p>');
}

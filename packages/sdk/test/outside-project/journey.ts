// An integrator's file in a project of their own: @ownproof/sdk and @ownproof/verify installed from their tarballs, type-
// checked with `tsc --strict`, run with Node against a running ownproof (OWNPROOF_BASE_URL,
// OWNPROOF_API_KEY: a test key). It prints what it found as one JSON line.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ownproof, OwnproofApiError, type OwnproofEvent } from '@ownproof/sdk';
import { checkStatementPdf, verificationKeys } from '@ownproof/verify';

const ownproof = new Ownproof({ apiKey: process.env.OWNPROOF_API_KEY ?? '', baseUrl: process.env.OWNPROOF_BASE_URL ?? '' });

// Our webhook receiver: the raw body and headers, as the signature needs them.
const deliveries: { body: string; headers: IncomingHttpHeaders }[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    deliveries.push({ body, headers: req.headers });
    res.writeHead(200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = await ownproof.webhookEndpoints.create({
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
  enabled_events: ['session.completed'],
});

const holder = await ownproof.connect.accountHolders.create({ email: 'grace@example.com', name: 'Grace Hopper' });
const session = await ownproof.connect.sessions.create({ account_holder: holder.id, permissions: ['balances', 'transactions'] });
await ownproof.testHelpers.connect.sessions.complete(session.id, { wallets: [{ prove_ownership: true }] });
const completed = await ownproof.connect.sessions.poll(session.id, { intervalMs: 500 });

const balances: string[] = [];
for await (const account of ownproof.connect.accounts.list({ session: session.id })) {
  await ownproof.connect.accounts.refresh(account.id, { features: ['balances'] });
  await ownproof.connect.accounts.pollRefresh(account.id, { intervalMs: 500 });
  for await (const balance of ownproof.connect.accounts.balances(account.id)) balances.push(`${balance.total} ${balance.asset}`);
}

const request = await ownproof.verify.accessRequests.create({
  type: 'sharing',
  account_holder_id: holder.id,
  permissions: ['balances', 'statements'],
});
const granted = await ownproof.testHelpers.verify.accessRequests.approve(request.id);

let event: OwnproofEvent | undefined;
for (let waited = 0; event === undefined && waited < 30_000; waited += 200) {
  const delivery = deliveries[0];
  if (delivery) event = await ownproof.webhooks.unwrap(delivery.body, delivery.headers as Record<string, string>, endpoint.secret ?? '');
  else await new Promise((resolve) => setTimeout(resolve, 200));
}
receiver.close();
// Narrowed by its type: the session the event carries.
const connectedAccounts = event?.type === 'session.completed' ? event.data.object.accounts : [];

const now = Math.floor(Date.now() / 1000);
const statement = await ownproof.verify.statements.generate({
  account_holder_id: holder.id,
  claim_ids: granted.claim_ids,
  period: { open: now - 365 * 86_400, close: now - 60 },
  timezone: 'Europe/London',
});
const done = await ownproof.verify.statements.poll(statement.id, { intervalMs: 500 });
const pdf: Uint8Array = await ownproof.verify.statements.downloadPdf(statement.id);
const check = await ownproof.verify.statements.check(pdf);
// The auditor's check: offline, against the keys saved from the server's JWKS.
const jwks = await ownproof.signingKeys.retrieve();
const offline = await checkStatementPdf(pdf, verificationKeys(jwks));

let missing: string | null = null;
try {
  await ownproof.verify.statements.retrieve('stmt_doesnotexist');
} catch (error) {
  if (error instanceof OwnproofApiError) missing = `${error.status} ${error.code} ${error.param}`;
}

console.log(
  JSON.stringify({
    session: completed.status,
    accounts: completed.accounts.length,
    webhookAccounts: connectedAccounts,
    balances,
    grant: granted.status,
    statement: done.status,
    pdf: new TextDecoder().decode(pdf.slice(0, 5)),
    valid: check.valid,
    offline: { valid: offline.valid, claims: offline.document?.claims.length ?? 0 },
    missing,
  }),
);

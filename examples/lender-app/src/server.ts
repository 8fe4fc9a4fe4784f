/**
 * Northwind Loans, an example lender on ownproof: `npm start` with OWNPROOF_API_KEY set (see README).
 * Plain node:http, so that every step of the integration is in view; use your own framework.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Ownproof, OwnproofApiError, OwnproofConnectionError } from '@ownproof/sdk';
import { Applications } from './applications.js';
import { applicationPage, applyPage, notFoundPage } from './pages.js';

const apiKey = process.env.OWNPROOF_API_KEY;
if (!apiKey) {
  console.error('Set OWNPROOF_API_KEY: the sk_test_… key `npm start` printed at the root of the ownproof repository.');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const appUrl = process.env.APP_URL ?? `http://127.0.0.1:${port}`;
const ownproofUrl = process.env.OWNPROOF_BASE_URL ?? 'http://127.0.0.1:8080';
const ownproof = new Ownproof({ apiKey, baseUrl: ownproofUrl });
const applications = new Applications(ownproof, `${appUrl}/return`);

// Where ownproof's webhooks reach us, and the secret that proves they come from ownproof. Given
// one (OWNPROOF_WEBHOOK_SECRET), we use it; otherwise we register an endpoint now and remove it
// when we stop, so that each run starts clean.
let webhookSecret = process.env.OWNPROOF_WEBHOOK_SECRET;
let registeredEndpoint: string | undefined;
if (!webhookSecret) {
  try {
    const endpoint = await ownproof.webhookEndpoints.create({
      url: `${appUrl}/webhooks`,
      enabled_events: [
        'session.completed',
        'session.abandoned',
        'access_request.granted',
        'access_request.declined',
        'statement.completed',
        'statement.failed',
      ],
      description: 'examples/lender-app',
    });
    webhookSecret = endpoint.secret as string;
    registeredEndpoint = endpoint.id;
  } catch (error) {
    if (error instanceof OwnproofConnectionError)
      console.error(
        `No answer from ownproof at ${ownproofUrl}: start it (\`npm start\` at the repository's root) or set OWNPROOF_BASE_URL.`,
      );
    else if (error instanceof OwnproofApiError)
      console.error(`ownproof refused to register our webhook endpoint: ${error.code}: ${error.message}`);
    else throw error;
    process.exit(1);
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', appUrl);
  const route = `${req.method} ${url.pathname}`;
  const appMatch = /^\/applications\/(app_[0-9a-f-]+)(\/access-request|\/statement\.pdf)?$/.exec(url.pathname);
  const application = appMatch ? applications.get(appMatch[1] as string) : undefined;

  if (route === 'GET /') return send(res, 200, applyPage());

  if (route === 'POST /applications') {
    const form = new URLSearchParams(await readBody(req));
    const name = form.get('name')?.trim() ?? '';
    const email = form.get('email')?.trim() ?? '';
    if (!name || !email) return send(res, 400, applyPage('Please give your name and e-mail address.'));
    try {
      const { hostedUrl } = await applications.apply(name, email);
      return redirect(res, hostedUrl);
    } catch (error) {
      if (error instanceof OwnproofApiError && error.param === 'email')
        return send(res, 400, applyPage('Please check your e-mail address.'));
      throw error;
    }
  }

  if (route === 'GET /return') {
    const returned = await applications.returned(url.searchParams.get('session_id') ?? '');
    return returned ? redirect(res, `/applications/${returned.id}`) : send(res, 404, notFoundPage());
  }

  if (route === 'POST /webhooks') {
    const body = await readBody(req);
    let event;
    try {
      event = await ownproof.webhooks.unwrap(body, req.headers as Record<string, string>, webhookSecret as string);
    } catch {
      res.writeHead(400).end();
      return;
    }
    await applications.onEvent(event);
    res.writeHead(200).end();
    return;
  }

  if (!application) return send(res, 404, notFoundPage());

  if (req.method === 'GET' && appMatch?.[2] === undefined) {
    const accounts = [];
    if (application.sessionStatus === 'completed') {
      for await (const account of ownproof.connect.accounts.list({ session: application.sessionId })) {
        const balances =
          account.balance_refresh?.status === 'succeeded' ? await ownproof.connect.accounts.balances(account.id).toArray() : [];
        accounts.push({ account, balances });
      }
    }
    const statement = application.statementId ? await ownproof.verify.statements.retrieve(application.statementId) : null;
    return send(res, 200, applicationPage({ application, accounts, statement }));
  }

  if (req.method === 'POST' && appMatch?.[2] === '/access-request') {
    await applications.requestAccess(application);
    return redirect(res, `/applications/${application.id}`);
  }

  if (req.method === 'GET' && appMatch?.[2] === '/statement.pdf' && application.statementId) {
    const pdf = await ownproof.verify.statements.downloadPdf(application.statementId);
    res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Disposition': `inline; filename="${application.statementId}.pdf"` });
    res.end(pdf);
    return;
  }

  send(res, 404, notFoundPage());
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { Location: location }).end();
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // The request id lets ownproof's operator find the details; nothing else reaches the page.
    const requestId = error instanceof OwnproofApiError ? ` (ownproof request ${error.requestId})` : '';
    console.error(`${req.method} ${req.url}: ${error instanceof Error ? error.message : String(error)}${requestId}`);
    if (!res.headersSent)
      send(
        res,
        500,
        '<!doctype html><html lang="en"><title>Error</title><main><h1>Something went wrong</h1><p>Please try again.</p></main></html>',
      );
  });
});
server.listen(port, '127.0.0.1', () => console.log(`Northwind Loans (examples/lender-app) is listening on ${appUrl}`));

async function stop(): Promise<void> {
  server.close();
  if (registeredEndpoint) await ownproof.webhookEndpoints.delete(registeredEndpoint).catch(() => undefined);
  process.exit(0);
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

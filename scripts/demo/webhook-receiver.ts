import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as it arrived: the exact body (what a signature covers) and the headers. */
export interface Delivery {
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * The lender's side of the demo on 127.0.0.1: `POST /webhooks` records deliveries (answering 200),
 * and `GET /connected` is the session's `return_url`, where the browser lands after Done.
 */
export interface LenderReceiver {
  origin: string;
  webhookUrl: string;
  returnUrl: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

export async function startLenderReceiver(): Promise<LenderReceiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/webhooks') {
        deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(200).end();
      } else if (req.method === 'GET' && req.url?.startsWith('/connected')) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(
          '<!doctype html><html lang="en"><title>Back at the lender</title><main><h1>Back at the lender</h1><p>The demo carries on in the terminal.</p></main></html>',
        );
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    webhookUrl: `${origin}/webhooks`,
    returnUrl: `${origin}/connected`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

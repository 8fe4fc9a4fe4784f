/**
 * A server for the HTTP benchmark, run as its own process so the load generator does not share its
 * event loop. `bare`: Fastify with one constant route, nothing else. `ownproof`: the real service
 * (startServer, default plugins, logging as configured) on a fresh SQLite file, with a client and an
 * account holder to fetch. `statement-pdf`: the same, plus a completed statement of 100 transactions
 * whose PDF has been downloaded once (so later downloads serve the stored file). Prints one line
 * `BENCH_TARGET {json}` with what the load generator needs (log lines may come before it).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { createClient } from '../src/clients/client.service.js';
import { createAccountHolder } from '../src/connect/account-holder.service.js';
import { loadConfig } from '../src/platform/config/config.js';
import { startServer } from '../src/main/server.js';
import { benchStatement } from './statement-pdf-fixture.js';

const kind = process.argv[2];

if (kind === 'bare') {
  const app = Fastify({ logger: false });
  app.get('/constant', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`BENCH_TARGET ${JSON.stringify({ url: `http://127.0.0.1:${port}/constant`, headers: {} })}\n`);
} else if (kind === 'ownproof' || kind === 'statement-pdf') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ownproof-bench-'));
  // One client drives all the load here, so the per-client rate limit is lifted; its check still runs.
  const config = loadConfig({ RATE_LIMIT_PER_SECOND: '1000000', ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
  const server = await startServer(config, { write: () => true } as unknown as NodeJS.WritableStream);
  const client = await createClient(server.runtime.ctx, { name: 'Bench' });
  const scope = { clientId: client.clientId, mode: 'test' as const };
  const holder = await createAccountHolder(server.runtime.ctx, scope, {
    email: 'bench@example.com',
    name: 'Bench',
    metadata: { tier: 'gold' },
  });
  const headers = { authorization: `Bearer ${client.testKey}` };
  const target = { url: `${server.url}/v1/connect/account_holders/${holder.id}`, headers };
  if (kind === 'statement-pdf') {
    // The same server also serves a stored statement PDF: the first download made and stored it.
    const pdfUrl = `${server.url}/v1/verify/statements/${await benchStatement(server.runtime.ctx, scope, holder.id)}/document/pdf`;
    const first = await fetch(pdfUrl, { headers });
    if (first.status !== 200) throw new Error(`the first PDF download answered ${first.status}`);
    Object.assign(target, { pdfUrl, pdfBytes: (await first.arrayBuffer()).byteLength });
  }
  process.stdout.write(`BENCH_TARGET ${JSON.stringify(target)}\n`);
} else {
  throw new Error(`unknown target ${kind}`);
}

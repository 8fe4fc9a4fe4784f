/**
 * `ownproof serve` with test seams: the production server (startServer: logger on stdout, the
 * in-process worker, the start-up banner) with exchanges and OAuth servers pointed at local fakes.
 * TEST_SEAMS (JSON, see ServeSeams) says where they are; everything else comes from the
 * environment, as for the binary; `--no-worker` as for `ownproof serve`. Stops on SIGTERM as it does.
 */
import { startServer } from '../../src/main/server.js';
import { loadConfig } from '../../src/platform/config/config.js';
import type { ServeSeams } from './cli-process.js';
import { pointExchangeAt } from './exchange-overrides.js';

const seams = JSON.parse(process.env.TEST_SEAMS ?? '{}') as ServeSeams;
const server = await startServer(loadConfig(process.env), process.stdout, {
  worker: !process.argv.includes('--no-worker'),
  given: {
    exchangeOverrides: Object.fromEntries(Object.entries(seams.exchanges ?? {}).map(([id, origin]) => [id, pointExchangeAt(id, origin)])),
    oauthServerOverrides: seams.oauthServers ?? {},
  },
});
process.once('SIGTERM', () => {
  server.app.log.info({ signal: 'SIGTERM' }, 'shutting down');
  void server.stop().then(() => process.exit(0));
});

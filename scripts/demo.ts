/**
 * `npm run demo`: a lender's whole sandbox integration, through @ownproof/sdk, in under a minute.
 *
 * Starts ownproof (`bin/ownproof.js serve`) on a SQLite database in a temporary directory — or
 * uses the server at DEMO_BASE_URL with the test key in DEMO_API_KEY — and a webhook receiver on
 * 127.0.0.1, then: account holder → session → completed by the test helper → accounts refreshed →
 * access request → approved by the test helper → webhooks verified → statement → PDF saved. Each
 * step is printed with its time; the last line is the saved PDF's path. Everything it started is
 * stopped at the end, on an error and on Ctrl-C.
 *
 *   npm run demo                      the account holder played by the test helpers
 *   npm run demo -- --browser         … by Chromium on the hosted pages and the portal (a window
 *                                     when there is a display; --headless for none), screenshots saved
 *   npm run demo -- --out DIR         where the PDF goes (default artifacts/demo/)
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Ownproof } from '../packages/sdk/src/index.js';
import { CHROMIUM_PATH, chromiumPresent, testHelperHolder, type AccountHolder } from './demo/account-holder.js';
import { runJourney, StepLog } from './demo/journey.js';
import { startLocalOwnproof, type LocalOwnproof } from './demo/local-ownproof.js';
import { startLenderReceiver, type LenderReceiver } from './demo/webhook-receiver.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      browser: { type: 'boolean', default: false },
      headless: { type: 'boolean', default: false },
      out: { type: 'string', default: path.resolve(import.meta.dirname, '../artifacts/demo') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    say('Usage: npm run demo [-- --browser [--headless]] [-- --out DIR]   (DEMO_BASE_URL + DEMO_API_KEY: use a running server)');
    return 0;
  }
  if (values.browser && !chromiumPresent()) {
    process.stderr.write(`--browser needs Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)\n`);
    return 2;
  }
  const baseUrl = process.env.DEMO_BASE_URL;
  const givenKey = process.env.DEMO_API_KEY;
  if (baseUrl !== undefined && !givenKey?.startsWith('sk_test_')) {
    process.stderr.write('DEMO_BASE_URL needs DEMO_API_KEY, a test-mode key (sk_test_…) of that server\n');
    return 2;
  }
  const outDir = path.resolve(values.out);
  mkdirSync(outDir, { recursive: true });

  const log = new StepLog(say);
  const started: { server?: LocalOwnproof; receiver?: LenderReceiver; holder?: AccountHolder } = {};
  const stopAll = async () => {
    await started.holder?.close();
    await started.receiver?.close();
    await started.server?.stop();
  };
  const interrupted = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    const server = baseUrl
      ? { url: baseUrl.replace(/\/+$/, ''), apiKey: givenKey as string }
      : await log.step(
          async () => (started.server = await startLocalOwnproof()),
          (s) => `Started ownproof at ${s.url} (SQLite in ${s.dataDir}, test key ${s.apiKey.slice(0, 12)}…)`,
        );
    if (baseUrl) log.line(`Using ownproof at ${server.url}`);
    const ownproof = new Ownproof({ apiKey: server.apiKey, baseUrl: server.url });
    started.receiver = await startLenderReceiver();
    const screenshotDir = path.join(outDir, 'screenshots');
    started.holder = values.browser
      ? await (
          await import('./demo/browser-holder.js')
        ).browserHolder({
          baseUrl: server.url,
          headed: !values.headless && hasDisplay(),
          screenshotDir,
          onScreenshot: (f) => log.line(`      page: ${f}`),
        })
      : testHelperHolder(ownproof);

    const result = await runJourney(ownproof, started.holder, started.receiver, outDir, log);
    await log.step(stopAll, () => (started.server ? 'Stopped ownproof and the webhook receiver' : 'Stopped the webhook receiver'));
    say('');
    say(`Check it offline: npx ownproof verify-statement ${result.pdfPath} --jwks ${result.jwksPath}`);
    say('The statement PDF:');
    say(result.pdfPath);
    return 0;
  } catch (error) {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopAll();
    return 1;
  }
}

function hasDisplay(): boolean {
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY) || process.platform === 'darwin' || process.platform === 'win32';
}

process.exitCode = await main();

/**
 * `npm run bench [-- section ...]`: every benchmark of the repository, each measuring the things it
 * compares side by side in this one run, so the ratios it prints do not depend on the machine.
 */
import { formatDeriveRows, runDeriveBench } from './bitcoin-derive.js';
import { formatReceiptBench, runReceiptBench } from './claim-receipts.js';
import { formatRows as formatVerifyRows, runVerifyBench } from './bitcoin-verify.js';
import { formatExchangeRefreshBench, runExchangeRefreshBench } from './exchange-refresh.js';
import { formatHttpBench, runHttpBench } from './http.js';
import { formatStartupBench, runStartupBench } from './startup.js';
import { formatStatementPdfBench, runStatementPdfBench } from './statement-pdf.js';
import { formatWebhookBench, runWebhookBench } from './webhooks.js';

const sections: Record<string, () => Promise<string>> = {
  http: async () => formatHttpBench(await runHttpBench()),
  webhooks: async () => formatWebhookBench(await runWebhookBench()),
  'bitcoin-verify': async () => formatVerifyRows(await runVerifyBench()),
  'bitcoin-derive': async () => formatDeriveRows(await runDeriveBench()),
  'claim-receipts': async () => formatReceiptBench(await runReceiptBench()),
  'statement-pdf': async () => formatStatementPdfBench(await runStatementPdfBench()),
  'exchange-refresh': async () => formatExchangeRefreshBench(await runExchangeRefreshBench()),
  startup: async () => formatStartupBench(await runStartupBench()),
};

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const chosen = wanted.length > 0 ? wanted : Object.keys(sections);
for (const name of chosen) {
  const section = sections[name];
  if (!section) {
    console.error(`unknown bench section "${name}"; choose from ${Object.keys(sections).join(', ')}`);
    process.exit(2);
  }
  console.log(`\n## ${name}\n`);
  console.log(await section());
}

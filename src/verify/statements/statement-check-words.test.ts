import { describe, expect, it } from 'vitest';
import { pdfPages } from '../../../test/support/pdf.js';
import { addressStatement, outsider, receive, tx } from '../../../test/support/statement-chain.js';
import { DOCUMENT_HASH, documentOf, renderDocument } from '../../../test/support/statement-documents.js';
import { candleOpenOf, PRICE_RULE } from '../../prices/price.service.js';
import { describeStatementCheck, statementFacts } from './statement-check-words.js';
import { valuationMoments, valueStatement } from './statement-valuation.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('what a checked statement states', () => {
  // Prices as a source gives them, trailing zeros dropped: the PDF writes them with the currency's minor-unit digits.
  const history = [tx(100, at('2026-10-05T12:00:00Z'), [[outsider(0), 10_000n]], [[receive(0), 10_000n]])];
  const period = { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-01T00:00:00Z') };
  const data = addressStatement(history, period, 'UTC');
  const priceOf = (moment: number) => (moment === period.open ? '57506' : moment === period.close ? '62050.2' : '60000.25');
  const valued = valueStatement(
    data,
    'EUR',
    { name: 'Test prices', exchange: 'test', market: 'BTC/EUR', currency: 'EUR', interval: '1h', rule: PRICE_RULE },
    valuationMoments(data).map((moment) => ({ at: moment, candleOpen: candleOpenOf(moment), price: priceOf(moment) })),
  );
  const document = documentOf(valued);

  it('writes the opening and closing prices as the statement PDF prints them', async () => {
    const pdf = (await pdfPages(await renderDocument(document))).join('\n');
    expect(pdf).toContain('57,506.00');
    expect(pdf).toContain('62,050.20');
    const facts = new Map(statementFacts(document));
    expect(facts.get('Opening value')).toMatch(/ EUR \(at 57,506\.00 EUR\/BTC\)$/);
    expect(facts.get('Closing value')).toMatch(/ EUR \(at 62,050\.20 EUR\/BTC\)$/);
    // `ownproof verify-statement` states the same words.
    const check = { object: 'statement_check', valid: true, reason: null, issuer: document.iss, signing_key_id: 'key_1' } as const;
    expect(describeStatementCheck({ ...check, document_hash: DOCUMENT_HASH, file_sha256: DOCUMENT_HASH, document })).toContain(
      '  Opening value: 0.00 EUR (at 57,506.00 EUR/BTC)',
    );
  });
});

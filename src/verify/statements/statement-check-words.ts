import type { StatementCheck, StatementDocument } from './statement-document.schemas.js';
import { btc, dateTimeInWords, fiat, holderText, offsetsInWords, periodInWords, price } from './pdf/statement-words.js';

/** What a checked statement document states, as label and text: the check page's list and the CLI's lines. */
export function statementFacts(document: StatementDocument): [label: string, text: string][] {
  const { statement, data } = document;
  const tz = data.timezone;
  const holder = statement.account_holder;
  const s = data.summary;
  return [
    [
      'Statement',
      `${statement.id}, ${document.document.format} layout, issued ${dateTimeInWords(document.document.issued_at, tz)}${statement.livemode ? '' : ' (test mode: sandbox chain, not real bitcoin)'}`,
    ],
    ['Requested by', statement.requested_by],
    ['Account holder', `${holderText(holder)}${holder.external_ref ? ` (reference ${holder.external_ref})` : ''}, ${holder.id}`],
    ['Period', `${periodInWords(data.period, tz)}. ${offsetsInWords(data.period, tz)}`],
    [
      'Chain tip',
      `block ${data.chain.height}, hash ${data.chain.block_hash}; transactions with at least ${data.chain.min_confirmations} confirmations there are counted`,
    ],
    ...document.claims.map(({ claim }): [string, string] => [
      'Claim',
      `${claim.subject.type === 'address' ? `address ${claim.subject.address}` : `wallet ${claim.subject.descriptor}`} (${claim.network}), ${claim.id}`,
    ]),
    ['Opening balance', `${btc(s.opening_balance)} BTC`],
    ['Received', `${btc(s.total_in)} BTC`],
    ['Sent', `${btc(s.total_out)} BTC`],
    ['Network fees paid', `${btc(s.total_fees)} BTC`],
    ['Closing balance', `${btc(s.closing_balance)} BTC`],
    ['Transactions', s.transaction_count.toLocaleString('en')],
    ...valuationFacts(data.valuation),
    ...(s.pending_transaction_count > 0
      ? [
          [
            'Not counted',
            `${s.pending_transaction_count.toLocaleString('en')} of the period, too recent to count${data.excluded ? ' (the statement lists each)' : ''}`,
          ] as [string, string],
        ]
      : []),
  ];
}

/** What a statement states of its valuation: its source and the period's figures in the currency, or why there is none. */
function valuationFacts(valuation: StatementDocument['data']['valuation']): [string, string][] {
  if (!valuation) return [];
  if (valuation.status === 'unavailable') return [[`Valuation in ${valuation.currency}`, `not included: ${valuation.reason}`]];
  const { source, summary: v, currency } = valuation;
  return [
    [
      `Valuation in ${currency}`,
      `prices from ${source.name} (${source.exchange}), market ${source.market}, ${source.interval} candles; ${valuation.prices.length.toLocaleString('en')} prices, in the signed data`,
    ],
    [`Opening value`, `${fiat(v.opening_value)} ${currency} (at ${price(v.opening_price, currency)} ${currency}/BTC)`],
    [`Received, sent, fees`, `${fiat(v.value_in)}, ${fiat(v.value_out)}, ${fiat(v.value_fees)} ${currency}, each at the price of its time`],
    ['Revaluation', `${fiat(v.revaluation)} ${currency}`],
    [`Closing value`, `${fiat(v.closing_value)} ${currency} (at ${price(v.closing_price, currency)} ${currency}/BTC)`],
  ];
}

/**
 * `ownproof verify-statement`'s answer (@ownproof/verify's command, worded as the check page words a
 * statement): VALID or INVALID and why, then what the statement states.
 */
export function describeStatementCheck(check: StatementCheck): string {
  if (!check.valid || !check.document) return `INVALID: ${check.reason ?? 'it could not be checked'}`;
  return [
    `VALID: an unaltered statement issued by ${check.issuer ?? ''}, signed with key ${check.signing_key_id ?? ''}; the receipt and Bitcoin proof of every claim in it were checked again here`,
    ...statementFacts(check.document).map(([label, text]) => `  ${label}: ${text}`),
    `  Document hash: ${check.document_hash ?? ''}`,
    `  File SHA-256: ${check.file_sha256 ?? ''}`,
  ].join('\n');
}

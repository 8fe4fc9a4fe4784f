import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../../platform/http/page.schemas.js';
import { MAX_ID_LENGTH, Timestamp } from '../../platform/http/schemas.js';
import { SUPPORTED_CURRENCIES } from '../../prices/currencies.js';
import { STATEMENT_STATUSES } from '../verify.table.js';
import { Fiat, Price, StatementValuation, StatementValuationSummary } from './statement-valuation.schemas.js';

/** Most claims one statement may cover. */
export const MAX_STATEMENT_CLAIMS = 100;
/** The longest period a statement may cover, in calendar years of its time zone. */
export const MAX_STATEMENT_YEARS = 10;
/**
 * The last second a period bound may name (9999-12-31T23:59:59Z): beyond it dates have no
 * four-digit year. Any bound after now is refused anyway; this only keeps absurd numbers from the
 * date arithmetic.
 */
export const MAX_PERIOD_TIME = 253_402_300_799;

/** Satoshis as decimal text: exact at any size, never a float. */
function Sats(description: string) {
  return Type.String({ description: `${description} In satoshis, as decimal text.`, examples: ['150000000'] });
}

/** How a period or a slice of it moved: the identity opening + in − out − fees = closing always holds. */
export const StatementTotalsFields = {
  opening_balance: Sats('Confirmed balance just before the start (every counted transaction in a block timed before it).'),
  closing_balance: Sats('Confirmed balance just before the end.'),
  total_in: Sats('Received from outside the claimed addresses.'),
  total_out: Sats('Sent to outside the claimed addresses, fees excluded.'),
  total_fees: Sats('Network fees the claimed addresses paid.'),
  transaction_count: Type.Integer({ minimum: 0, description: 'Counted transactions that touch the claimed addresses in this span.' }),
};
export const StatementTotals = Type.Object(StatementTotalsFields, { additionalProperties: false });
export type StatementTotals = Static<typeof StatementTotals>;

export const StatementSummary = Type.Object(
  {
    ...StatementTotalsFields,
    pending_transaction_count: Type.Integer({
      minimum: 0,
      description:
        'Transactions of the period whose blocks had fewer than `chain.min_confirmations` confirmations when the statement was computed (or were mined above its tip while it was read): not counted, ' +
        'since they could still be reorganised away. Only a period ending within about the last hour has any; generate a new statement later to include them. Its documents list each one.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'The whole period, all claims together (a transfer between two of the statement’s claims is internal here). Present once `completed`.',
  },
);
export type StatementSummary = Static<typeof StatementSummary>;

export const StatementChain = Type.Object(
  {
    height: Type.Integer({ description: 'Height of the chain tip the statement was computed at.' }),
    block_hash: Type.String({ description: 'Hash of that block.' }),
    min_confirmations: Type.Integer({ minimum: 1, description: 'Confirmations (at that tip) a transaction needed to count.' }),
  },
  { additionalProperties: false, description: 'The chain the statement was computed from. Present once `completed`.' },
);
export type StatementChain = Static<typeof StatementChain>;

export const StatementPeriod = Type.Object(
  {
    open: Timestamp('Start of the period (Unix seconds), included.'),
    close: Timestamp(
      'End of the period (Unix seconds), excluded: a transaction in a block timed exactly at `close` belongs to the next period.',
    ),
  },
  { additionalProperties: false },
);
export type StatementPeriod = Static<typeof StatementPeriod>;

export const Statement = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `stmt_`.' }),
    object: Type.Literal('statement'),
    status: Type.Union(
      STATEMENT_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`pending` while it is computed, then `completed` (`statement.completed`) or `failed` (`statement.failed`, see `failure_reason`).',
      },
    ),
    account_holder_id: Type.String(),
    claim_ids: Type.Array(Type.String(), { description: 'The claims it covers, in the order given.' }),
    period: StatementPeriod,
    timezone: Type.String({ description: 'The IANA time zone given on generation: month sections and times in the document follow it.' }),
    summary: Type.Union([StatementSummary, Type.Null()]),
    chain: Type.Union([StatementChain, Type.Null()]),
    valuation_currency: Type.Union([Type.String(), Type.Null()], {
      description: 'The currency the statement is valued in, as asked for (ISO 4217); null when not asked.',
    }),
    valuation: Type.Union([StatementValuationSummary, Type.Null()]),
    failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, in words; null unless `failed`.' }),
    created_at: Timestamp('When it was requested (Unix seconds).'),
    updated_at: Timestamp('When its status last changed (Unix seconds).'),
    completed_at: Type.Union([Timestamp('When it was computed (Unix seconds).'), Type.Null()]),
    pdf_generated_at: Type.Union(
      [Timestamp('When its first PDF was generated, the one billed use of its PDFs (Unix seconds).'), Type.Null()],
      {
        description:
          'Null until its PDF is first downloaded (either format); set once. Later downloads of either format are free. See `GET /v1/usage`.',
      },
    ),
    livemode: Type.Boolean(),
  },
  {
    $id: 'Statement',
    title: 'Statement',
    description: 'A statement of the confirmed Bitcoin activity of shared claims over a period. Its figures never change once completed.',
  },
);
export type Statement = Static<typeof Statement>;

/** A period bound as the request may send it: both spellings the spec shows are taken. */
const PeriodBound = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PERIOD_TIME, description }));

export const GenerateStatementBody = Type.Object(
  {
    account_holder_id: Type.String({
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
      description: 'An account holder of yours in this mode: the owner of every claim.',
    }),
    claim_ids: Type.Array(Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH }), {
      minItems: 1,
      maxItems: MAX_STATEMENT_CLAIMS,
      uniqueItems: true,
      description: `1 to ${MAX_STATEMENT_CLAIMS} different claims of that account holder, each shared with you with the \`statements\` permission.`,
    }),
    period: Type.Object(
      {
        open: PeriodBound('Start (Unix seconds), included.'),
        close: PeriodBound('End (Unix seconds), excluded; not in the future.'),
        opening_time: PeriodBound('Another name for `open`.'),
        closing_time: PeriodBound('Another name for `close`.'),
      },
      {
        additionalProperties: false,
        description:
          '`{open, close}` or `{opening_time, closing_time}` (not a mix), in Unix seconds: open before close, close not in the future, ' +
          `at most ${MAX_STATEMENT_YEARS} years (in the statement's time zone). The statement always returns it as \`{open, close}\`.`,
        examples: [{ open: 1_767_225_600, close: 1_769_904_000 }],
      },
    ),
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'An IANA time zone name, such as `UTC`, `America/New_York` or `Asia/Kolkata`: months start at midnight there.',
      examples: ['UTC'],
    }),
    valuation_currency: Type.Optional(
      Type.Union(
        SUPPORTED_CURRENCIES.map((code) => Type.Literal(code)),
        {
          description:
            'Also value the statement in this currency (ISO 4217): the opening and closing balances at the period’s bounds and each movement at its time, ' +
            'from hourly prices of a named source (docs/prices.md). If the prices cannot be had, the statement still completes, without valuation, saying why.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type GenerateStatementInput = Static<typeof GenerateStatementBody>;

export const StatementListQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(
      Type.Union(
        STATEMENT_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only statements in this status.' },
      ),
    ),
    account_holder_id: Type.Optional(Type.String({ maxLength: MAX_ID_LENGTH, description: 'Only statements of this account holder.' })),
  },
  { additionalProperties: false },
);
export type StatementListQuery = Static<typeof StatementListQuery>;

// What the computation stores: everything a document of the statement shows, fixed once completed.

const ClaimEffect = Type.Object(
  {
    claim_id: Type.String(),
    amount_in: Sats('Received by this claim’s addresses from outside them.'),
    amount_out: Sats('Sent from this claim’s addresses to outside them, fee excluded.'),
    fee: Sats('The part of the fee this claim paid.'),
    balance: Sats('This claim’s balance after the transaction.'),
  },
  { additionalProperties: false },
);

/** What a transaction is for the statement's addresses (docs/verify.md, "What it covers"). */
export const MOVEMENT_KINDS = ['received', 'sent', 'self_transfer', 'consolidation', 'deposit_proof'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];
const Movement = Type.Union(
  MOVEMENT_KINDS.map((k) => Type.Literal(k)),
  {
    description:
      'What the transaction is for the statement’s addresses (all its claims as one set): `received` (none of its inputs is theirs, or they came out ahead), ' +
      '`sent` (an input is theirs and money left for outside addresses), `self_transfer` (every input and output is theirs: only the fee leaves), ' +
      '`consolidation` (a self transfer of two or more inputs into a single output), `deposit_proof` (the payment a deposit-proof claim of the statement was proven with). ' +
      'From `version` 2 on.',
  },
);

/** Most outside addresses a transaction lists (`counterparties`); how many more there were is `counterparties_more`. */
export const MAX_COUNTERPARTIES = 3;

/** Confirmations: the tip's height − the block's height + 1, or 0 for a block above the tip. */
const Confirmations = Type.Integer({
  minimum: 0,
  description: 'Confirmations of its block at the tip the statement was computed at; 0 for a block above that tip.',
});

export const StatementTransaction = Type.Object(
  {
    txid: Type.String(),
    block_height: Type.Integer(),
    block_time: Timestamp('The block header’s time (Unix seconds).'),
    block_time_local: Type.String({ description: 'The same time in the statement’s time zone, ISO 8601 with its offset.' }),
    kind: Type.Optional(Movement),
    counterparties: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MAX_COUNTERPARTIES,
        description:
          `The outside addresses, each once, at most ${MAX_COUNTERPARTIES}: for \`received\` the addresses its outside inputs spent from; for \`sent\` and \`deposit_proof\` the addresses of its outside outputs; ` +
          'none for transfers to self. Outputs without an address (`OP_RETURN`) are not listed. From `version` 2 on.',
      }),
    ),
    counterparties_more: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'How many more outside addresses there were than `counterparties` lists. From `version` 2 on.',
      }),
    ),
    amount_in: Sats('Received by the statement’s addresses from outside them.'),
    amount_out: Sats('Sent from the statement’s addresses to outside them, fee excluded.'),
    fee: Sats('The fee the statement’s addresses paid.'),
    balance: Sats('The statement’s balance after the transaction.'),
    price: Type.Optional(Price('With a valuation: the price of its time.')),
    value_in: Type.Optional(Fiat('With a valuation: `amount_in` at `price`.')),
    value_out: Type.Optional(Fiat('With a valuation: `amount_out` at `price`.')),
    value_fee: Type.Optional(Fiat('With a valuation: `fee` at `price`.')),
    claims: Type.Array(ClaimEffect, { description: 'Each claim the transaction touches, as that claim alone sees it.' }),
  },
  { additionalProperties: false },
);
export type StatementTransaction = Static<typeof StatementTransaction>;

/** A transaction of the period the statement leaves out, and why. */
export const StatementExclusion = Type.Object(
  {
    txid: Type.String(),
    block_height: Type.Integer(),
    block_time: Timestamp('The block header’s time (Unix seconds).'),
    block_time_local: Type.String({ description: 'The same time in the statement’s time zone, ISO 8601 with its offset.' }),
    kind: Movement,
    net: Type.String({
      description:
        'What it would have changed the statement’s balance by: received − sent − fee, in satoshis, as decimal text (negative when it lowers it).',
    }),
    confirmations: Confirmations,
    reason: Type.String({ description: 'Why it is left out, in words.' }),
  },
  { additionalProperties: false },
);
export type StatementExclusion = Static<typeof StatementExclusion>;

const SpanFields = {
  month: Type.String({ description: 'The calendar month in the statement’s time zone, `YYYY-MM`.' }),
  start: Timestamp('Where this section starts (Unix seconds, included): local midnight on the 1st, or the period’s open.'),
  end: Timestamp('Where it ends (Unix seconds, excluded): local midnight on the next 1st, or the period’s close.'),
};

export const StatementMonth = Type.Object(
  { ...SpanFields, ...StatementTotalsFields, transactions: Type.Array(StatementTransaction) },
  { additionalProperties: false },
);
export type StatementMonth = Static<typeof StatementMonth>;

export const StatementClaimSubject = Type.Union([
  Type.Object({ type: Type.Literal('address'), address: Type.String() }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('wallet'), descriptor: Type.String() }, { additionalProperties: false }),
]);

export const StatementClaimSection = Type.Object(
  {
    claim_id: Type.String(),
    subject: StatementClaimSubject,
    network: Type.String(),
    addresses: Type.Array(Type.String(), {
      description: 'Every address whose history was read: the address, or each address the wallet was found to use.',
    }),
    summary: StatementTotals,
    months: Type.Array(Type.Object({ ...SpanFields, ...StatementTotalsFields }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type StatementClaimSection = Static<typeof StatementClaimSection>;

/** The version {@link StatementData} is computed in now; documents of earlier versions still render and check. */
export const STATEMENT_DATA_VERSION = 2;

/**
 * The stored result of a statement: what a completed statement states, for its documents.
 * Version 1 (statements computed before issue 23) lacks `excluded` and each transaction's `kind`
 * and counterparties; version 2 always has them. A completed statement is never recomputed, so
 * both versions are read.
 */
export const StatementData = Type.Object(
  {
    version: Type.Union([Type.Literal(1), Type.Literal(STATEMENT_DATA_VERSION)]),
    period: StatementPeriod,
    timezone: Type.String(),
    chain: StatementChain,
    summary: StatementSummary,
    claims: Type.Array(StatementClaimSection),
    months: Type.Array(StatementMonth),
    excluded: Type.Optional(
      Type.Array(StatementExclusion, {
        description:
          'Every transaction of the period left out, in chain order (`summary.pending_transaction_count` counts them). From `version` 2 on.',
      }),
    ),
    valuation: Type.Optional(StatementValuation),
  },
  { additionalProperties: false },
);
export type StatementData = Static<typeof StatementData>;

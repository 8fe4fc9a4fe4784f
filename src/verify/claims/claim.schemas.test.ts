import { Value } from '@sinclair/typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  isClaimStatement,
  type ChallengeSubject as VerifiedChallengeSubject,
  type ClaimStatement as VerifiedClaimStatement,
  type StatementCheck as VerifiedStatementCheck,
  type StatementDocument as VerifiedStatementDocument,
} from '@ownproof/verify';
import type { ChallengeSubject } from './challenge.schemas.js';
import { ClaimStatement } from './claim.schemas.js';
import type { StatementCheck, StatementDocument } from '../statements/statement-document.schemas.js';

const addressClaim: ClaimStatement = {
  id: 'clm_1',
  account_holder_id: 'ah_1',
  subject: { type: 'address', address: 'tb1qexample' },
  address_type: 'p2wpkh',
  network: 'testnet',
  label: null,
  proof: { format: 'bip322-simple', message: 'ownproof ownership proof\n…', address: 'tb1qexample', signature: 'AkcwRAIg' },
  verified_at: 1_763_700_000,
  chain: { height: 120, block_hash: '00'.repeat(32) },
  livemode: false,
};
const walletClaim: ClaimStatement = {
  ...addressClaim,
  subject: { type: 'wallet', descriptor: 'wpkh(tpubD6Nz…/0/*)#abcdefgh', addresses_derived_to: { receive: 21, change: 20 } },
  label: 'Savings',
  proof: { format: 'deposit', message: 'ownproof ownership proof\n…', address: 'tb1qpayer', txid: 'ab'.repeat(32), signed_path: '0/4' },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const WRONG: Json[] = [null, 7, 'text', true, [], {}];

/** `value` with one change at each place: each field dropped, each value of another type, an unknown field added to each object. */
function variants(value: Json): Json[] {
  if (value === null || typeof value !== 'object') return WRONG.filter((other) => typeof other !== typeof value || other === null);
  if (Array.isArray(value)) return [];
  const out: Json[] = [{ ...value, unknown_field: 1 }];
  for (const [key, field] of Object.entries(value)) {
    const { [key]: _dropped, ...without } = value;
    out.push(without);
    for (const changed of variants(field)) out.push({ ...value, [key]: changed });
  }
  return out;
}

describe('the claim statement that @ownproof/verify checks', () => {
  it('is, as a type, the claim statement of the service’s schema; a statement document and check of the schema are ones the package reads', () => {
    // Checked by tsc (npm run lint): the package's hand-written types cannot drift from the schemas.
    expectTypeOf<VerifiedClaimStatement>().toEqualTypeOf<ClaimStatement>();
    expectTypeOf<StatementDocument>().toExtend<VerifiedStatementDocument>();
    expectTypeOf<StatementCheck>().toExtend<VerifiedStatementCheck>();
  });

  it('accepts and refuses exactly what the schema accepts and refuses', () => {
    const samples = [addressClaim, walletClaim].flatMap((claim) => [claim as unknown as Json, ...variants(claim as unknown as Json)]);
    const accepted = samples.filter((sample) => Value.Check(ClaimStatement, sample));
    // Both sides of the line are exercised: the two samples and their variants within the schema (e.g. a label given), and the many outside it.
    expect(accepted.length).toBeGreaterThan(2);
    expect(samples.length - accepted.length).toBeGreaterThan(50);
    for (const sample of samples) expect(isClaimStatement(sample), JSON.stringify(sample)).toBe(Value.Check(ClaimStatement, sample));
  });
});

describe('the challenge subject that @ownproof/verify words', () => {
  it('is, as a type, the challenge subject of the schema its column is read with', () => {
    // Checked by tsc (npm run lint): the package's type is the source, the service's schema cannot drift from it.
    expectTypeOf<ChallengeSubject>().toEqualTypeOf<VerifiedChallengeSubject>();
  });
});

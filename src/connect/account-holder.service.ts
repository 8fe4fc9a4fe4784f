import type { AppContext } from '../platform/context.js';
import { unixSeconds } from '../platform/clock.js';
import { newId } from '../platform/crypto/random.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import { ApiError, notFound, unknownId } from '../platform/http/errors.js';
import { resolvePage, type PageQueryInput } from '../platform/http/pagination.js';
import { recordEvent } from '../platform/events/event.service.js';
import type { Scope } from '../platform/scope.js';
import {
  accountHolderMetadata,
  encodeAccountHolderMetadata,
  findAccountHolder,
  findAccountHolderForUpdate,
  findAccountHoldersByEmail,
  insertAccountHolder,
  listAccountHolderRows,
  updateAccountHolderRow,
} from './account-holder.repository.js';
import type { AccountHolder, CreateAccountHolderInput, UpdateAccountHolderInput } from './account-holder.schemas.js';
import type { AccountHolderRow } from './account-holder.table.js';

export type AccountHolderDeps = Pick<AppContext, 'db' | 'clock' | 'capabilities'>;

const MAX_METADATA_KEYS = 50;

export function toAccountHolder(row: AccountHolderRow): AccountHolder {
  return {
    id: row.id,
    object: 'account_holder',
    email: row.email,
    name: row.name,
    external_ref: row.external_ref,
    metadata: accountHolderMetadata(row),
    livemode: row.mode === 'live',
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function createAccountHolder(deps: AccountHolderDeps, scope: Scope, input: CreateAccountHolderInput): Promise<AccountHolder> {
  const now = unixSeconds(deps.clock);
  const row: AccountHolderRow = {
    seq: 0,
    id: newId('ah'),
    client_id: scope.clientId,
    mode: scope.mode,
    email: input.email,
    name: input.name ?? null,
    external_ref: input.external_ref ?? null,
    metadata: encodeAccountHolderMetadata(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  const { seq: _seq, ...values } = row;
  const holder = toAccountHolder(row);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await insertAccountHolder(trx, values);
      await recordEvent({ db: trx, clock: deps.clock }, scope, 'account_holder.created', holder);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('external_ref_taken', { param: 'external_ref' });
    throw error;
  }
  return holder;
}

/** The account holder with this id in this scope; 404 otherwise (also for another client's id). */
export async function retrieveAccountHolder(deps: Pick<AccountHolderDeps, 'db'>, scope: Scope, id: string): Promise<AccountHolder> {
  const row = await findAccountHolder(deps.db, scope, id);
  if (!row) throw notFound('account_holder', id);
  return toAccountHolder(row);
}

/**
 * Refuses an account holder id sent in the body or query string (`param`) that names none of this
 * client and mode: 400 `parameter_invalid` (docs/errors.md, "Ids that name nothing").
 */
export async function requireAccountHolderParam(
  deps: Pick<AccountHolderDeps, 'db'>,
  scope: Scope,
  id: string,
  param: string,
): Promise<void> {
  if (!(await findAccountHolder(deps.db, scope, id))) throw unknownId(param, 'account_holder', id);
}

/**
 * Every account holder with this e-mail address, across clients, in the given modes: the people
 * a portal sign-in to that address stands for (docs/verify.md, "Who the portal shows").
 */
export async function accountHoldersByEmail(
  deps: Pick<AccountHolderDeps, 'db'>,
  email: string,
  modes: readonly Scope['mode'][],
): Promise<AccountHolderRow[]> {
  return findAccountHoldersByEmail(deps.db, email, modes);
}

export async function listAccountHolders(deps: AccountHolderDeps, scope: Scope, query: PageQueryInput) {
  const page = await resolvePage(query, async (id) => (await findAccountHolder(deps.db, scope, id))?.seq);
  const { rows, hasMore } = await listAccountHolderRows(deps.db, scope, page);
  return { data: rows.map(toAccountHolder), has_more: hasMore };
}

/**
 * Changes name, e-mail, external_ref or metadata. Metadata merges key by key: a key set to "" is
 * removed, keys not sent stay, and the result must still fit the 50-key limit.
 */
export async function updateAccountHolder(
  deps: AccountHolderDeps,
  scope: Scope,
  id: string,
  input: UpdateAccountHolderInput,
): Promise<AccountHolder> {
  try {
    // Read, merge and write in one transaction with the row locked: concurrent metadata updates
    // must not overwrite each other's keys.
    return await deps.db.transaction().execute(async (trx) => {
      const row = await findAccountHolderForUpdate(trx, deps.capabilities, scope, id);
      if (!row) throw notFound('account_holder', id);
      const metadata = accountHolderMetadata(row);
      for (const [key, value] of Object.entries(input.metadata ?? {})) {
        if (value === '') delete metadata[key];
        else metadata[key] = value;
      }
      if (Object.keys(metadata).length > MAX_METADATA_KEYS) {
        throw new ApiError('parameter_invalid', {
          param: 'metadata',
          message: `Invalid value for metadata: an account holder can have at most ${MAX_METADATA_KEYS} keys.`,
        });
      }
      const updated: AccountHolderRow = {
        ...row,
        email: input.email ?? row.email,
        name: input.name === undefined ? row.name : input.name,
        external_ref: input.external_ref === undefined ? row.external_ref : input.external_ref,
        metadata: encodeAccountHolderMetadata(metadata),
        updated_at: unixSeconds(deps.clock),
      };
      await updateAccountHolderRow(trx, scope, id, {
        email: updated.email,
        name: updated.name,
        external_ref: updated.external_ref,
        metadata: updated.metadata,
        updated_at: updated.updated_at,
      });
      const holder = toAccountHolder(updated);
      await recordEvent({ db: trx, clock: deps.clock }, scope, 'account_holder.updated', holder);
      return holder;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('external_ref_taken', { param: 'external_ref' });
    throw error;
  }
}

import { accountHoldersByEmail } from '../../../connect/account-holder.service.js';
import { clientDisplayName } from '../../../clients/client.service.js';
import { unixSeconds } from '../../../platform/clock.js';
import type { AppContext } from '../../../platform/context.js';
import { hashSecret, newSecret } from '../../../platform/crypto/random.js';
import { emailIdentity } from '../../../platform/mail/address.js';
import type { Mode } from '../../../platform/scope.js';
import { Type } from '@sinclair/typebox';
import { jsonColumn } from '../../../platform/db/json-column.js';
import type { ClaimOwner } from '../sharing.service.js';
import type { PortalSessionRow } from '../../verify.table.js';

export type PortalDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'mailer'>;

/** A sign-in link asked for on the sign-in page works this long. */
export const SIGN_IN_LINK_TTL_SECONDS = 15 * 60;
/** The link in an access-request e-mail: people read such mail late (docs/verify.md, "Signing in"). */
export const REQUEST_LINK_TTL_SECONDS = 72 * 3600;
/** A portal session lasts this long, whatever the person does. */
export const SESSION_TTL_SECONDS = 12 * 3600;
/** Sign-in links one address may ask for per hour, and one IP address. */
export const SIGN_IN_LIMITS = { perAddress: 5, perIp: 30, windowSeconds: 3600 };

/** The portal's base URL (its page surface is mounted there; its links point there). */
export function portalBaseUrl(config: AppContext['config']): string {
  return `${config.publicBaseUrl}/portal`;
}

/**
 * The modes whose account holders mail may reach, the one rule for what this server asks people by
 * e-mail: SMTP reaches both; the development outbox, readable by whoever can open `/dev/mail`,
 * test mode only, so no link that went there ever signs anyone in to live data; a production
 * server without SMTP_URL (transport `none`) neither.
 */
export function reachableModes(mailer: AppContext['mailer']): readonly Mode[] {
  return MAIL_REACH[mailer.transport];
}

const MAIL_REACH: Record<AppContext['mailer']['transport'], readonly Mode[]> = { smtp: ['test', 'live'], outbox: ['test'], none: [] };

/**
 * `verify_portal_links.modes` and `verify_portal_sessions.modes` (this file holds the portal tables'
 * SQL): the modes whose account holders a sign-in, and the session it starts, may see.
 */
const Modes = Type.Array(Type.Union([Type.Literal('test'), Type.Literal('live')]));
const LINK_MODES = jsonColumn('verify_portal_links', 'modes', Modes);
const SESSION_MODES = jsonColumn('verify_portal_sessions', 'modes', Modes);

/**
 * Makes a single-use sign-in link for an address (stored as a hash: the token lives only in the
 * e-mail), optionally opening an access request once used.
 */
export async function createSignInLink(
  deps: PortalDeps,
  input: { email: string; accessRequestId?: string; ttlSeconds: number },
): Promise<string> {
  const token = newSecret('pl');
  const now = unixSeconds(deps.clock);
  await deps.db
    .insertInto('verify_portal_links')
    .values({
      token_hash: hashSecret(token),
      email: emailIdentity(input.email),
      modes: LINK_MODES.encode([...reachableModes(deps.mailer)]),
      access_request_id: input.accessRequestId ?? null,
      created_at: now,
      expires_at: now + input.ttlSeconds,
      used_at: null,
    })
    .execute();
  return `${portalBaseUrl(deps.config)}/sign-in/${token}`;
}

export type SignInRequestOutcome = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Counts a request for a sign-in link against the limits of its address and of the caller's IP
 * address. Whether anyone has this address is not looked at here (the mail job does that), so the
 * answer and its timing are the same for a known and an unknown address.
 */
export async function admitSignInRequest(deps: Pick<PortalDeps, 'db' | 'clock'>, email: string, ip: string): Promise<SignInRequestOutcome> {
  const now = unixSeconds(deps.clock);
  const since = now - SIGN_IN_LIMITS.windowSeconds;
  const address = emailIdentity(email);
  return deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('verify_portal_sign_in_attempts').where('email', '=', address).where('created_at', '<', since).execute();
    await trx.deleteFrom('verify_portal_sign_in_attempts').where('ip', '=', ip).where('created_at', '<', since).execute();
    const count = async (column: 'email' | 'ip', value: string) => {
      const rows = await trx
        .selectFrom('verify_portal_sign_in_attempts')
        .select('created_at')
        .where(column, '=', value)
        .orderBy('created_at')
        .execute();
      return { count: rows.length, oldest: rows[0]?.created_at ?? now };
    };
    for (const [column, value, limit] of [
      ['email', address, SIGN_IN_LIMITS.perAddress],
      ['ip', ip, SIGN_IN_LIMITS.perIp],
    ] as const) {
      const seen = await count(column, value);
      if (seen.count >= limit) return { ok: false, retryAfterSeconds: Math.max(1, seen.oldest + SIGN_IN_LIMITS.windowSeconds - now) };
    }
    await trx.insertInto('verify_portal_sign_in_attempts').values({ email: address, ip, created_at: now }).execute();
    return { ok: true };
  });
}

export type SignInOutcome = { ok: true; sessionToken: string; accessRequestId: string | null } | { ok: false };

/**
 * Uses a sign-in link: once, before it expires. Starts a new session (a fresh token: whatever
 * session the browser had before is ended, so a planted cookie never becomes a signed-in one).
 */
export async function signInWithLink(deps: PortalDeps, token: string, previousSessionToken: string | undefined): Promise<SignInOutcome> {
  const now = unixSeconds(deps.clock);
  return deps.db.transaction().execute(async (trx) => {
    const link = await trx
      .updateTable('verify_portal_links')
      .set({ used_at: now })
      .where('token_hash', '=', hashSecret(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    if (!link) return { ok: false } as const;
    if (previousSessionToken)
      await trx
        .updateTable('verify_portal_sessions')
        .set({ ended_at: now })
        .where('token_hash', '=', hashSecret(previousSessionToken))
        .execute();
    const sessionToken = newSecret('ps');
    await trx
      .insertInto('verify_portal_sessions')
      .values({
        token_hash: hashSecret(sessionToken),
        email: link.email,
        // The link's text as it is: written by LINK_MODES.encode, it holds what SESSION_MODES reads.
        modes: link.modes,
        created_at: now,
        expires_at: now + SESSION_TTL_SECONDS,
        ended_at: null,
      })
      .execute();
    return { ok: true, sessionToken, accessRequestId: link.access_request_id } as const;
  });
}

/** Whether a link can still be used (the confirmation page says so before the person clicks). */
export async function linkIsUsable(deps: Pick<PortalDeps, 'db' | 'clock'>, token: string): Promise<boolean> {
  const row = await deps.db
    .selectFrom('verify_portal_links')
    .select(['used_at', 'expires_at'])
    .where('token_hash', '=', hashSecret(token))
    .executeTakeFirst();
  return row !== undefined && row.used_at === null && row.expires_at > unixSeconds(deps.clock);
}

/** The live session of a cookie's token. */
export async function findPortalSession(deps: Pick<PortalDeps, 'db' | 'clock'>, token: string): Promise<PortalSessionRow | undefined> {
  return deps.db
    .selectFrom('verify_portal_sessions')
    .selectAll()
    .where('token_hash', '=', hashSecret(token))
    .where('ended_at', 'is', null)
    .where('expires_at', '>', unixSeconds(deps.clock))
    .executeTakeFirst();
}

export async function endPortalSession(deps: Pick<PortalDeps, 'db' | 'clock'>, token: string): Promise<void> {
  await deps.db
    .updateTable('verify_portal_sessions')
    .set({ ended_at: unixSeconds(deps.clock) })
    .where('token_hash', '=', hashSecret(token))
    .execute();
}

/** One of the account holders a signed-in person is: one per client (and mode) that has their address. */
export interface PersonHolder {
  id: string;
  clientId: string;
  mode: Mode;
  name: string | null;
  /** The client, as the person knows it. */
  clientName: string;
}

/**
 * Who is signed in: an e-mail address (the identity that controls the claims proven under it), the
 * modes the sign-in reaches, and every account holder that has the address now in those modes
 * (whose requests the person answers).
 */
export interface PortalPerson {
  email: string;
  modes: Mode[];
  holders: PersonHolder[];
}

/** The signed-in person as the owner of claims: the claims their address controls, in their modes. */
export function ownerOf(person: PortalPerson): ClaimOwner {
  return { controller: person.email, modes: person.modes };
}

export async function portalPerson(
  deps: Pick<PortalDeps, 'db'>,
  session: Pick<PortalSessionRow, 'seq' | 'email' | 'modes'>,
): Promise<PortalPerson> {
  const modes = SESSION_MODES.decode(session.modes, `seq ${session.seq}`);
  const rows = await accountHoldersByEmail(deps, session.email, modes);
  const names = new Map<string, string>();
  for (const row of rows)
    if (!names.has(row.client_id)) names.set(row.client_id, (await clientDisplayName(deps, row.client_id)) ?? 'A client');
  return {
    email: session.email,
    modes,
    holders: rows.map((row) => ({
      id: row.id,
      clientId: row.client_id,
      mode: row.mode,
      name: row.name,
      clientName: names.get(row.client_id) as string,
    })),
  };
}

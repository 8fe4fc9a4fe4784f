import type { AppContext } from '../context.js';
import { unixSeconds } from '../clock.js';
import { newId } from '../crypto/random.js';
import { ApiError, notFound } from '../http/errors.js';
import { resolvePage, type PageQueryInput } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import { networkOf } from './network.js';
import { newWebhookSecret } from './signature.js';
import { checkWebhookUrl, targetRules, UrlRefused } from './url-policy.js';
import {
  deleteWebhookEndpointRow,
  encodeEndpointEventTypes,
  endpointEventTypes,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpointRows,
  updateWebhookEndpointRow,
} from './webhook-endpoint.repository.js';
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  type CreateWebhookEndpointInput,
  type EnabledEvent,
  type RotateSecretInput,
  type UpdateWebhookEndpointInput,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from './webhook.schemas.js';
import type { WebhookEndpointRow } from './webhook.table.js';

export type WebhookDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox' | 'webhookNetwork'>;

/** The secret box purpose of an endpoint's secrets: bound to the column and the endpoint. */
function secretPurpose(column: 'secret' | 'previous_secret', endpointId: string): string {
  return `webhook_endpoints.${column}:${endpointId}`;
}

export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled_events: endpointEventTypes(row),
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: row.previous_secret !== null ? row.previous_secret_expires_at : null,
    livemode: row.mode === 'live',
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Creates an endpoint with a fresh signing secret, returned this once. */
export async function createWebhookEndpoint(
  deps: WebhookDeps,
  scope: Scope,
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpointWithSecret> {
  const url = await checkedUrl(deps, scope, input.url);
  const enabledEvents = checkedEvents(input.enabled_events);
  const now = unixSeconds(deps.clock);
  const id = newId('we');
  const secret = newWebhookSecret();
  const row: WebhookEndpointRow = {
    seq: 0,
    id,
    client_id: scope.clientId,
    mode: scope.mode,
    url,
    description: input.description ?? null,
    enabled_events: encodeEndpointEventTypes(enabledEvents),
    secret: deps.secretBox.seal(secret, secretPurpose('secret', id)),
    previous_secret: null,
    previous_secret_expires_at: null,
    status: 'enabled',
    disabled_reason: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  const { seq: _seq, ...values } = row;
  await insertWebhookEndpoint(deps.db, values);
  return { ...toWebhookEndpoint(row), secret };
}

/** The endpoint with this id in this scope; 404 otherwise (also for another client's id). */
export async function retrieveWebhookEndpoint(deps: WebhookDeps, scope: Scope, id: string): Promise<WebhookEndpoint> {
  return toWebhookEndpoint(await requireEndpoint(deps, scope, id));
}

export async function listWebhookEndpoints(deps: WebhookDeps, scope: Scope, query: PageQueryInput) {
  const page = await resolvePage(query, async (id) => (await findWebhookEndpoint(deps.db, scope, id))?.seq);
  const { rows, hasMore } = await listWebhookEndpointRows(deps.db, scope, page);
  return { data: rows.map(toWebhookEndpoint), has_more: hasMore };
}

/**
 * Changes the URL (checked again), the events, the description, or enables/disables the endpoint.
 * Enabling it again starts a fresh failure streak; deliveries dropped while it was disabled are not
 * sent by themselves (resend them with POST /v1/events/{id}/resend).
 */
export async function updateWebhookEndpoint(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  input: UpdateWebhookEndpointInput,
): Promise<WebhookEndpoint> {
  const row = await requireEndpoint(deps, scope, id);
  const url = input.url === undefined ? row.url : await checkedUrl(deps, scope, input.url);
  const enabledEvents =
    input.enabled_events === undefined ? row.enabled_events : encodeEndpointEventTypes(checkedEvents(input.enabled_events));
  const updated: WebhookEndpointRow = {
    ...row,
    url,
    enabled_events: enabledEvents,
    description: input.description === undefined ? row.description : input.description,
    updated_at: unixSeconds(deps.clock),
  };
  if (input.disabled === true && row.status === 'enabled') Object.assign(updated, { status: 'disabled', disabled_reason: 'manual' });
  if (input.disabled === false && row.status === 'disabled')
    Object.assign(updated, { status: 'enabled', disabled_reason: null, failing_since: null });
  await updateWebhookEndpointRow(deps.db, scope, id, {
    url: updated.url,
    enabled_events: updated.enabled_events,
    description: updated.description,
    status: updated.status,
    disabled_reason: updated.disabled_reason,
    failing_since: updated.failing_since,
    updated_at: updated.updated_at,
  });
  return toWebhookEndpoint(updated);
}

/** Deletes the endpoint with its delivery history; pending deliveries to it are dropped. */
export async function deleteWebhookEndpoint(deps: WebhookDeps, scope: Scope, id: string) {
  if (!(await deleteWebhookEndpointRow(deps.db, scope, id))) throw notFound('webhook_endpoint', id);
  return { id, object: 'webhook_endpoint' as const, deleted: true as const };
}

/**
 * Issues a new signing secret, returned this once. For `grace_period` seconds (default 24 h)
 * deliveries carry a signature with the previous secret as well, so receivers can switch without
 * losing events. A secret older than the previous one is dropped at once.
 */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  scope: Scope,
  id: string,
  input: RotateSecretInput,
): Promise<WebhookEndpointWithSecret> {
  const row = await requireEndpoint(deps, scope, id);
  const now = unixSeconds(deps.clock);
  const grace = input.grace_period ?? DEFAULT_GRACE_PERIOD_SECONDS;
  const secret = newWebhookSecret();
  const previous = grace > 0 ? deps.secretBox.open(row.secret, secretPurpose('secret', id)) : undefined;
  const updated: WebhookEndpointRow = {
    ...row,
    secret: deps.secretBox.seal(secret, secretPurpose('secret', id)),
    previous_secret: previous === undefined ? null : deps.secretBox.seal(previous, secretPurpose('previous_secret', id)),
    previous_secret_expires_at: previous === undefined ? null : now + grace,
    updated_at: now,
  };
  await updateWebhookEndpointRow(deps.db, scope, id, {
    secret: updated.secret,
    previous_secret: updated.previous_secret,
    previous_secret_expires_at: updated.previous_secret_expires_at,
    updated_at: now,
  });
  return { ...toWebhookEndpoint(updated), secret };
}

/** The secrets that sign a delivery now: the current one, then the previous one during its grace period. */
export function signingSecrets(deps: Pick<WebhookDeps, 'secretBox'>, row: WebhookEndpointRow, nowSeconds: number): string[] {
  const secrets = [deps.secretBox.open(row.secret, secretPurpose('secret', row.id))];
  if (row.previous_secret !== null && row.previous_secret_expires_at !== null && nowSeconds < row.previous_secret_expires_at) {
    secrets.push(deps.secretBox.open(row.previous_secret, secretPurpose('previous_secret', row.id)));
  }
  return secrets;
}

/** The endpoint named by the URL's id in this scope; 404 otherwise (also for another client's id). */
export async function requireEndpoint(deps: WebhookDeps, scope: Scope, id: string): Promise<WebhookEndpointRow> {
  const row = await findWebhookEndpoint(deps.db, scope, id);
  if (!row) throw notFound('webhook_endpoint', id);
  return row;
}

async function checkedUrl(deps: WebhookDeps, scope: Scope, raw: string): Promise<string> {
  try {
    return await checkWebhookUrl(networkOf(deps), raw, targetRules(deps.config, scope.mode));
  } catch (error) {
    if (error instanceof UrlRefused)
      throw new ApiError('parameter_invalid', { param: 'url', message: `Invalid value for url: ${error.message}.` });
    throw error;
  }
}

function checkedEvents(events: EnabledEvent[]): EnabledEvent[] {
  if (events.includes('*') && events.length > 1) {
    throw new ApiError('parameter_invalid', {
      param: 'enabled_events',
      message: 'Invalid value for enabled_events: "*" already means every event type; send it alone.',
    });
  }
  return events;
}

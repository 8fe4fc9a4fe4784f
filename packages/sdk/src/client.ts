import { ListPromise, type Page } from './list.js';
import type { BodyOf, ItemOf, ListParams, OperationId, QueryOf, ResultOf } from './operations.js';
import { pollUntil, type PollOptions } from './poll.js';
import { Transport, type ApiRequest, type RequestOptions, type TransportOptions } from './transport.js';
import { unwrap } from './webhooks.js';

export type OwnproofOptions = TransportOptions;

type Query = ApiRequest['query'];
const enc = encodeURIComponent;

/**
 * The ownproof API. One instance per API key:
 * ```ts
 * const ownproof = new Ownproof({ apiKey: process.env.OWNPROOF_API_KEY!, baseUrl: 'https://ownproof.example.com' });
 * const session = await ownproof.connect.sessions.create({ account_holder: holder.id, permissions: ['balances'] });
 * ```
 * Every method takes {@link RequestOptions} last (idempotency key, abort signal, retries, timeout).
 */
export class Ownproof {
  readonly transport: Transport;

  constructor(options: OwnproofOptions) {
    this.transport = new Transport(options);
  }

  private get<K extends OperationId>(_op: K, path: string, query: Query, options?: RequestOptions): Promise<ResultOf<K>> {
    return this.transport.json<ResultOf<K>>({ method: 'GET', path, query }, options);
  }

  private post<K extends OperationId>(_op: K, path: string, body: unknown, options?: RequestOptions): Promise<ResultOf<K>> {
    return this.transport.json<ResultOf<K>>({ method: 'POST', path, body }, options);
  }

  /** Reads `path` (one request each time, see {@link pollUntil}) until `done`. */
  private poll<K extends OperationId>(
    op: K,
    path: string,
    done: (value: ResultOf<K>) => boolean,
    options?: PollOptions,
  ): Promise<ResultOf<K>> {
    return pollUntil(
      () => this.get(op, path, undefined, { maxRetries: 0, ...(options?.signal ? { signal: options.signal } : {}) }),
      done,
      options,
    );
  }

  private list<K extends OperationId>(_op: K, path: string, params: object | undefined, options?: RequestOptions): ListPromise<ItemOf<K>> {
    return new ListPromise<ItemOf<K>>((startingAfter) =>
      this.transport.json<Page<ItemOf<K>>>(
        { method: 'GET', path, query: { ...(params as Query), ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) } },
        options,
      ),
    );
  }

  readonly connect = {
    accountHolders: {
      create: (body: BodyOf<'createAccountHolder'>, options?: RequestOptions) =>
        this.post('createAccountHolder', '/v1/connect/account_holders', body, options),
      retrieve: (id: string, options?: RequestOptions) =>
        this.get('retrieveAccountHolder', `/v1/connect/account_holders/${enc(id)}`, undefined, options),
      update: (id: string, body: BodyOf<'updateAccountHolder'>, options?: RequestOptions) =>
        this.post('updateAccountHolder', `/v1/connect/account_holders/${enc(id)}`, body, options),
      list: (params?: ListParams<'listAccountHolders'>, options?: RequestOptions) =>
        this.list('listAccountHolders', '/v1/connect/account_holders', params, options),
    },
    sessions: {
      create: (body: BodyOf<'createSession'>, options?: RequestOptions) =>
        this.post('createSession', '/v1/connect/sessions', body, options),
      retrieve: (id: string, options?: RequestOptions) =>
        this.get('retrieveSession', `/v1/connect/sessions/${enc(id)}`, undefined, options),
      list: (params?: ListParams<'listSessions'>, options?: RequestOptions) =>
        this.list('listSessions', '/v1/connect/sessions', params, options),
      /**
       * Waits until the session is `completed` or `abandoned` and returns it. At most two requests
       * a second (default one); prefer the `session.completed` webhook where you can receive one.
       */
      poll: (id: string, options?: PollOptions) =>
        this.poll(
          'retrieveSession',
          `/v1/connect/sessions/${enc(id)}`,
          (session) => session.status === 'completed' || session.status === 'abandoned',
          options,
        ),
    },
    accounts: {
      retrieve: (id: string, options?: RequestOptions) =>
        this.get('retrieveAccount', `/v1/connect/accounts/${enc(id)}`, undefined, options),
      list: (params?: ListParams<'listAccounts'>, options?: RequestOptions) =>
        this.list('listAccounts', '/v1/connect/accounts', params, options),
      disconnect: (id: string, options?: RequestOptions) =>
        this.post('disconnectAccount', `/v1/connect/accounts/${enc(id)}/disconnect`, undefined, options),
      refresh: (id: string, body: BodyOf<'refreshAccount'>, options?: RequestOptions) =>
        this.post('refreshAccount', `/v1/connect/accounts/${enc(id)}/refresh`, body, options),
      /** Waits until no refresh of the account is `pending` (after `refresh`, or the first one after a session) and returns it; at most two requests a second. */
      pollRefresh: (id: string, options?: PollOptions) =>
        this.poll(
          'retrieveAccount',
          `/v1/connect/accounts/${enc(id)}`,
          (account) => account.balance_refresh?.status !== 'pending' && account.transaction_refresh?.status !== 'pending',
          options,
        ),
      balances: (id: string, options?: RequestOptions) =>
        this.list('listAccountBalances', `/v1/connect/accounts/${enc(id)}/balances`, undefined, options),
      transactions: (id: string, params?: ListParams<'listAccountTransactions'>, options?: RequestOptions) =>
        this.list('listAccountTransactions', `/v1/connect/accounts/${enc(id)}/transactions`, params, options),
      addresses: (id: string, options?: RequestOptions) =>
        this.list('listAccountAddresses', `/v1/connect/accounts/${enc(id)}/addresses`, undefined, options),
    },
  };

  readonly verify = {
    claims: {
      retrieve: (id: string, options?: RequestOptions) => this.get('retrieveClaim', `/v1/verify/claims/${enc(id)}`, undefined, options),
      list: (params?: ListParams<'listClaims'>, options?: RequestOptions) => this.list('listClaims', '/v1/verify/claims', params, options),
      /** Checks a claim receipt (a JWS) against this server's keys; no data of yours is needed. */
      check: (body: BodyOf<'checkClaimReceipt'>, options?: RequestOptions) =>
        this.post('checkClaimReceipt', '/v1/verify/claims/verify', body, options),
    },
    accessRequests: {
      create: (body: BodyOf<'createAccessRequest'>, options?: RequestOptions) =>
        this.post('createAccessRequest', '/v1/verify/access_requests', body, options),
      retrieve: (id: string, options?: RequestOptions) =>
        this.get('retrieveAccessRequest', `/v1/verify/access_requests/${enc(id)}`, undefined, options),
      list: (params?: ListParams<'listAccessRequests'>, options?: RequestOptions) =>
        this.list('listAccessRequests', '/v1/verify/access_requests', params, options),
      cancel: (id: string, options?: RequestOptions) =>
        this.post('cancelAccessRequest', `/v1/verify/access_requests/${enc(id)}/cancel`, undefined, options),
    },
    statements: {
      generate: (body: BodyOf<'generateStatement'>, options?: RequestOptions) =>
        this.post('generateStatement', '/v1/verify/statements/generate', body, options),
      retrieve: (id: string, options?: RequestOptions) =>
        this.get('retrieveStatement', `/v1/verify/statements/${enc(id)}`, undefined, options),
      list: (params?: ListParams<'listStatements'>, options?: RequestOptions) =>
        this.list('listStatements', '/v1/verify/statements', params, options),
      /** Waits until the statement is `completed` or `failed` and returns it (at most two requests a second). */
      poll: (id: string, options?: PollOptions) =>
        this.poll(
          'retrieveStatement',
          `/v1/verify/statements/${enc(id)}`,
          (statement) => statement.status === 'completed' || statement.status === 'failed',
          options,
        ),
      /** The statement's signed PDF, as bytes. */
      downloadPdf: (id: string, params?: QueryOf<'downloadStatementPdf'>, options?: RequestOptions) =>
        this.transport.bytes(
          { method: 'GET', path: `/v1/verify/statements/${enc(id)}/document/pdf`, query: params as Query, accept: 'application/pdf' },
          options,
        ),
      /** Checks a statement: its PDF's bytes, or the document hash printed on it. */
      check: (document: Uint8Array | { document_hash: string }, options?: RequestOptions): Promise<ResultOf<'checkStatement'>> =>
        document instanceof Uint8Array
          ? this.transport.json(
              { method: 'POST', path: '/v1/verify/statements/verify', raw: { bytes: document, contentType: 'application/pdf' } },
              options,
            )
          : this.post('checkStatement', '/v1/verify/statements/verify', document, options),
    },
  };

  readonly events = {
    retrieve: (id: string, options?: RequestOptions) => this.get('retrieveEvent', `/v1/events/${enc(id)}`, undefined, options),
    list: (params?: ListParams<'listEvents'>, options?: RequestOptions) => this.list('listEvents', '/v1/events', params, options),
    resend: (id: string, body?: BodyOf<'resendEvent'>, options?: RequestOptions) =>
      this.post('resendEvent', `/v1/events/${enc(id)}/resend`, body ?? {}, options),
  };

  readonly webhookEndpoints = {
    create: (body: BodyOf<'createWebhookEndpoint'>, options?: RequestOptions) =>
      this.post('createWebhookEndpoint', '/v1/webhook_endpoints', body, options),
    retrieve: (id: string, options?: RequestOptions) =>
      this.get('retrieveWebhookEndpoint', `/v1/webhook_endpoints/${enc(id)}`, undefined, options),
    update: (id: string, body: BodyOf<'updateWebhookEndpoint'>, options?: RequestOptions) =>
      this.post('updateWebhookEndpoint', `/v1/webhook_endpoints/${enc(id)}`, body, options),
    delete: (id: string, options?: RequestOptions): Promise<ResultOf<'deleteWebhookEndpoint'>> =>
      this.transport.json({ method: 'DELETE', path: `/v1/webhook_endpoints/${enc(id)}` }, options),
    list: (params?: ListParams<'listWebhookEndpoints'>, options?: RequestOptions) =>
      this.list('listWebhookEndpoints', '/v1/webhook_endpoints', params, options),
    rotateSecret: (id: string, body?: BodyOf<'rotateWebhookEndpointSecret'>, options?: RequestOptions) =>
      this.post('rotateWebhookEndpointSecret', `/v1/webhook_endpoints/${enc(id)}/rotate_secret`, body ?? {}, options),
    deliveries: (id: string, params?: ListParams<'listWebhookDeliveryAttempts'>, options?: RequestOptions) =>
      this.list('listWebhookDeliveryAttempts', `/v1/webhook_endpoints/${enc(id)}/deliveries`, params, options),
  };

  readonly usage = {
    list: (params?: ListParams<'listUsage'>, options?: RequestOptions) => this.list('listUsage', '/v1/usage', params, options),
  };

  /** The server's published claim and statement signing keys (a JWKS), for offline checks. */
  readonly signingKeys = {
    retrieve: (options?: RequestOptions) => this.get('claimSigningKeys', '/.well-known/jwks.json', undefined, options),
  };

  /**
   * Test mode only (an `sk_test_` key; a live key gets 403 `test_mode_only`): do what the account
   * holder does on the hosted pages and in the portal, through the same code, so your CI can run
   * the whole journey without a browser (docs/sandbox.md, "Test helpers").
   */
  readonly testHelpers = {
    connect: {
      sessions: {
        /** Consent, Sandbox Exchange logins and/or wallets (proven with the sandbox wallet if asked), then Done. */
        complete: (id: string, body: BodyOf<'testHelpersCompleteSession'>, options?: RequestOptions) =>
          this.post('testHelpersCompleteSession', `/v1/test_helpers/connect/sessions/${enc(id)}/complete`, body, options),
        /** Cancel, as the person would. */
        abandon: (id: string, options?: RequestOptions) =>
          this.post('testHelpersAbandonSession', `/v1/test_helpers/connect/sessions/${enc(id)}/abandon`, undefined, options),
      },
      accounts: {
        /** The account's exchange login expires: `requires_reauth`. */
        requireReauth: (id: string, options?: RequestOptions) =>
          this.post('testHelpersRequireReauth', `/v1/test_helpers/connect/accounts/${enc(id)}/require_reauth`, undefined, options),
      },
    },
    verify: {
      accessRequests: {
        /** Approve and share, with the claims picked (default: every claim the portal would offer). */
        approve: (id: string, body?: BodyOf<'testHelpersApproveAccessRequest'>, options?: RequestOptions) =>
          this.post('testHelpersApproveAccessRequest', `/v1/test_helpers/verify/access_requests/${enc(id)}/approve`, body ?? {}, options),
        decline: (id: string, options?: RequestOptions) =>
          this.post('testHelpersDeclineAccessRequest', `/v1/test_helpers/verify/access_requests/${enc(id)}/decline`, undefined, options),
      },
      claims: {
        /** The holder's Revoke under Shared access: your access to the claim ends. */
        revokeAccess: (id: string, options?: RequestOptions) =>
          this.post('testHelpersRevokeClaimAccess', `/v1/test_helpers/verify/claims/${enc(id)}/revoke_access`, undefined, options),
      },
    },
    webhookEndpoints: {
      /** Sends a signed `webhook_endpoint.ping` to that endpoint alone. */
      ping: (id: string, options?: RequestOptions) =>
        this.post('testHelpersPingWebhookEndpoint', `/v1/test_helpers/webhook_endpoints/${enc(id)}/ping`, undefined, options),
    },
  };

  /** Checking webhook deliveries: `ownproof.webhooks.unwrap(rawBody, headers, secret)` gives the typed event. */
  readonly webhooks = { unwrap };
}

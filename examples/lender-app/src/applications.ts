import { randomUUID } from 'node:crypto';
import type { Ownproof, OwnproofEvent } from '@ownproof/sdk';

/**
 * A loan application: who applies, and how far ownproof has got. Kept in memory here; your app
 * keeps it in its database, next to the ownproof ids it stores.
 */
export interface Application {
  id: string;
  name: string;
  email: string;
  accountHolderId: string;
  sessionId: string;
  sessionStatus: 'open' | 'completed' | 'abandoned';
  /** Whether we asked ownproof to read the connected accounts' balances and history. */
  refreshRequested: boolean;
  accessRequestId: string | null;
  accessStatus: string | null;
  statementId: string | null;
  statementStatus: 'pending' | 'completed' | 'failed' | null;
  /** Webhook events about it, as received: type and when. */
  events: { type: string; at: Date }[];
}

/** The lender's side of the journey, through @ownproof/sdk. */
export class Applications {
  private readonly byId = new Map<string, Application>();
  private readonly seenEvents = new Set<string>();

  constructor(
    private readonly ownproof: Ownproof,
    /** Where ownproof sends the applicant back after Done or Cancel. */
    private readonly returnUrl: string,
  ) {}

  get(id: string): Application | undefined {
    return this.byId.get(id);
  }

  private find(match: (a: Application) => boolean): Application | undefined {
    return [...this.byId.values()].find(match);
  }

  /** A new applicant: an account holder and a connect session; send their browser to the returned URL. */
  async apply(name: string, email: string): Promise<{ application: Application; hostedUrl: string }> {
    const holder = await this.ownproof.connect.accountHolders.create({ name, email });
    const session = await this.ownproof.connect.sessions.create({
      account_holder: holder.id,
      permissions: ['balances', 'transactions'],
      return_url: this.returnUrl,
    });
    const application: Application = {
      id: `app_${randomUUID()}`,
      name,
      email,
      accountHolderId: holder.id,
      sessionId: session.id,
      sessionStatus: session.status,
      refreshRequested: false,
      accessRequestId: null,
      accessStatus: null,
      statementId: null,
      statementStatus: null,
      events: [],
    };
    this.byId.set(application.id, application);
    return { application, hostedUrl: session.hosted_url as string };
  }

  /**
   * The applicant is back at the return_url. Its query string is only a hint (anyone can type
   * one): the session's state is read from the API.
   */
  async returned(sessionId: string): Promise<Application | undefined> {
    const application = this.find((a) => a.sessionId === sessionId);
    if (!application) return undefined;
    const session = await this.ownproof.connect.sessions.retrieve(sessionId);
    application.sessionStatus = session.status;
    if (session.status === 'completed') await this.refreshAccounts(application, session.accounts);
    return application;
  }

  /**
   * Asks ownproof to read each connected account's balances and transactions (it does so in the
   * background; the account's `balance_refresh.status` says when they are there). Once per
   * application, whichever comes first: the return_url or the `session.completed` webhook.
   */
  private async refreshAccounts(application: Application, accountIds: string[]): Promise<void> {
    if (application.refreshRequested) return;
    application.refreshRequested = true;
    for (const id of accountIds) {
      await this.ownproof.connect.accounts.refresh(id, { features: ['balances', 'transactions'] }, { idempotencyKey: `refresh-${id}` });
    }
  }

  /** Ask the applicant (by e-mail, through ownproof) to share proof of their wallet, for statements. */
  async requestAccess(application: Application): Promise<void> {
    if (application.accessRequestId) return;
    const request = await this.ownproof.verify.accessRequests.create(
      {
        type: 'sharing',
        account_holder_id: application.accountHolderId,
        permissions: ['balances', 'statements'],
        message: 'We need a statement of your Bitcoin wallet for your loan application.',
      },
      // The same key on a double submit: one request, not two.
      { idempotencyKey: `access-request-${application.id}` },
    );
    application.accessRequestId = request.id;
    application.accessStatus = request.status;
  }

  /** A verified webhook event. Deliveries can repeat and arrive out of order: each event counts once. */
  async onEvent(event: OwnproofEvent): Promise<void> {
    if (this.seenEvents.has(event.id)) return;
    this.seenEvents.add(event.id);
    switch (event.type) {
      case 'session.completed':
      case 'session.abandoned': {
        const application = this.find((a) => a.sessionId === event.data.object.id);
        if (!application) return;
        application.sessionStatus = event.data.object.status;
        this.note(application, event);
        if (event.type === 'session.completed') await this.refreshAccounts(application, event.data.object.accounts);
        return;
      }
      case 'access_request.granted':
      case 'access_request.declined': {
        const request = event.data.object;
        const application = this.find((a) => a.accessRequestId === request.id);
        if (!application) return;
        application.accessStatus = request.status;
        this.note(application, event);
        if (request.status === 'granted') await this.generateStatement(application, request.claim_ids);
        return;
      }
      case 'statement.completed':
      case 'statement.failed': {
        const application = this.find((a) => a.statementId === event.data.object.id);
        if (!application) return;
        application.statementStatus = event.data.object.status;
        return this.note(application, event);
      }
      default:
      // Other events (and types added later) are not this app's business.
    }
  }

  private note(application: Application, event: OwnproofEvent): void {
    application.events.push({ type: event.type, at: new Date(event.created_at * 1000) });
  }

  /** A statement of the last twelve months of the shared wallets. */
  private async generateStatement(application: Application, claimIds: string[]): Promise<void> {
    if (application.statementId) return;
    const now = Math.floor(Date.now() / 1000);
    const statement = await this.ownproof.verify.statements.generate(
      {
        account_holder_id: application.accountHolderId,
        claim_ids: claimIds,
        period: { open: now - 365 * 86_400, close: now - 60 },
        timezone: 'Europe/London',
      },
      { idempotencyKey: `statement-${application.id}` },
    );
    application.statementId = statement.id;
    application.statementStatus = statement.status;
  }
}

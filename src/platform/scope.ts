/** Test mode is the sandbox; live mode touches real exchanges and mainnet. */
export type Mode = 'test' | 'live';

/**
 * Every object belongs to one client in one mode. An API key carries exactly one scope, and every
 * query is filtered by it, so another tenant's object looks exactly like a missing one.
 */
export interface Scope {
  clientId: string;
  mode: Mode;
}

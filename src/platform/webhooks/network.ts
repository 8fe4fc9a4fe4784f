import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * The outside world as webhook delivery sees it. Tests inject a resolver (to simulate DNS
 * rebinding or a public name) and a short timeout; production uses the system resolver.
 */
export interface WebhookNetwork {
  /** Every address a host name resolves to. */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  /** Whole request: connect, send, response headers and body. */
  timeoutMs: number;
}

/** Standard Webhooks recommends 15 to 30 s; we wait 15 s for the receiver to answer. */
export const DELIVERY_TIMEOUT_MS = 15_000;

const systemNetwork: WebhookNetwork = {
  async resolve(hostname) {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  },
  timeoutMs: DELIVERY_TIMEOUT_MS,
};

/** The network webhook services use: the system's, with what a test put on the context (`ctx.webhookNetwork`). */
export function networkOf(deps: { webhookNetwork?: Partial<WebhookNetwork> | undefined }): WebhookNetwork {
  return deps.webhookNetwork ? { ...systemNetwork, ...deps.webhookNetwork } : systemNetwork;
}

// The service's own public address, for agent_memory's identity_check_endpoint (spec 2.5: "fixed to
// the service's own address, never derived from a merchant's configuration"). The merchant's
// serviceUrl may be an internal name, a proxy or a mistake; the service says where agents reach it:
// in its health answer (`service_url`, its PUBLIC_BASE_URL) and in every session answer's
// agent_memory, the newest of which wins.
//
// Only the first denial that needs it waits for the health answer (at most 2 s); after that the
// address is asked again in the background, hourly, or a minute after the service could not be
// reached. Until the service has said, the configured URL stands in. A loopback address is not
// taken from a service the merchant reaches by another name: that service has no PUBLIC_BASE_URL
// set, and agents elsewhere could not reach 127.0.0.1.
import type { ServiceClient } from './service-client.ts';

const refreshMs = 3_600_000;
const retryMs = 60_000;
const healthTimeoutMs = 2_000;

export interface ServiceAddress {
  /** The service's own address when known; the configured one until then. */
  current(): Promise<string>;
  /** Takes the address from a session answer's agent_memory. */
  learnFrom(agentMemory: unknown): void;
}

export function serviceAddress(client: ServiceClient, now: () => number = Date.now): ServiceAddress {
  let known: string | null = null;
  let nextAskAt = 0;
  let first: Promise<void> | null = null;

  const take = (value: unknown) => {
    const address = webAddress(value);
    if (address && !(isLoopback(address) && !isLoopback(client.serviceUrl))) known = address;
  };
  const ask = async () => {
    const answer = await client.call('GET', '/health', undefined, healthTimeoutMs);
    // An unhealthy service (503) still says where it is; one that says nothing is not asked again soon.
    if (answer.kind === 'answer') take(answer.body?.service_url);
    nextAskAt = now() + (answer.kind === 'answer' ? refreshMs : retryMs);
  };

  return {
    async current() {
      if (now() >= nextAskAt) {
        nextAskAt = Infinity; // one question at a time
        const asking = ask().catch(() => {
          nextAskAt = now() + retryMs;
        });
        first ??= asking;
      }
      await first;
      return known ?? client.serviceUrl;
    },
    learnFrom(agentMemory) {
      if (typeof agentMemory === 'object' && agentMemory !== null) take((agentMemory as Record<string, unknown>).identity_check_endpoint);
    },
  };
}

function webAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}

function isLoopback(address: string): boolean {
  const host = new URL(address).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

// The service's own public address, for agent_memory's identity_check_endpoint (spec 2.5: "fixed to
// the service's own address, never derived from a merchant's configuration"). The merchant's
// serviceUrl may be an internal name, a proxy or a mistake; the service says where agents reach it:
// in its health answer (`service_url`, asked once, keyless) and in every session answer's
// agent_memory. Until it has said so (the service unreachable at the first denial), the configured
// URL stands in, and the health answer is asked again at most once a minute.
import type { ServiceClient } from './service-client.ts';

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
  let askedAt = -Infinity;
  let asking: Promise<void> | null = null;

  const ask = async () => {
    const answer = await client.call('GET', '/health', undefined, healthTimeoutMs);
    // An unhealthy service (503) still says where it is.
    if (answer.kind === 'answer') known ??= webAddress(answer.body?.service_url);
  };

  return {
    async current() {
      if (known === null && now() - askedAt >= retryMs) {
        askedAt = now();
        asking ??= ask().finally(() => (asking = null));
      }
      if (asking) await asking;
      return known ?? client.serviceUrl;
    },
    learnFrom(agentMemory) {
      const endpoint = typeof agentMemory === 'object' && agentMemory !== null ? (agentMemory as Record<string, unknown>).identity_check_endpoint : undefined;
      known ??= webAddress(endpoint);
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

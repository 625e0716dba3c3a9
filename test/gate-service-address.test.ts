// How the gate learns the service's own address (gate/service-address.ts) over time: a service
// client answering as the service's health endpoint would, and a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { serviceAddress } from '../gate/service-address.ts';
import type { ServiceAnswer, ServiceClient } from '../gate/service-client.ts';

/** Answers in turn; `after[n]`, when given, holds the n-th answer until it settles. */
function healthClient(serviceUrl: string, answers: ServiceAnswer[], after: Promise<unknown>[] = []): ServiceClient & { asked: number } {
  const client = {
    serviceUrl,
    asked: 0,
    async call(method: string, path: string) {
      expect(`${method} ${path}`).toBe('GET /health');
      const n = client.asked++;
      await after[n];
      return answers[Math.min(n, answers.length - 1)]!;
    },
  };
  return client;
}
const health = (serviceUrl?: string): ServiceAnswer => ({ kind: 'answer', status: 200, body: { status: 'ok', ...(serviceUrl ? { service_url: serviceUrl } : {}) }, headers: new Headers() });
const unreachable: ServiceAnswer = { kind: 'unreachable', reason: 'network_timeout', detail: 'no answer' };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the gate's view of the service's own address", () => {
  it('asks once, then hourly in the background; the newest answer wins', async () => {
    let clock = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const client = healthClient('http://reputation.internal:8080', [health('https://api.example.org'), health('https://api2.example.org')], [Promise.resolve(), held]);
    const address = serviceAddress(client, () => clock);
    expect(await address.current()).toBe('https://api.example.org');
    clock += 3_599_000;
    expect(await address.current()).toBe('https://api.example.org');
    expect(client.asked).toBe(1);
    clock += 2_000;
    // Not waited for: the known address answers while the new question is out.
    expect(await address.current()).toBe('https://api.example.org');
    release();
    await settle();
    expect(await address.current()).toBe('https://api2.example.org');
    expect(client.asked).toBe(2);
    // A session answer's agent_memory is newer still.
    address.learnFrom({ identity_check_endpoint: 'https://api3.example.org/' });
    expect(await address.current()).toBe('https://api3.example.org');
  });

  it('unreachable: the configured URL, asked again a minute later; a service that names no address is asked again in an hour', async () => {
    let clock = 0;
    const client = healthClient('https://merchant.example/reputation', [unreachable, health(), health('https://api.example.org')]);
    const address = serviceAddress(client, () => clock);
    expect(await address.current()).toBe('https://merchant.example/reputation');
    clock += 59_000;
    await address.current();
    expect(client.asked).toBe(1);
    clock += 2_000;
    await address.current();
    await settle();
    expect([client.asked, await address.current()]).toEqual([2, 'https://merchant.example/reputation']);
    clock += 3_000_000;
    await address.current();
    expect(client.asked).toBe(2);
    clock += 700_000;
    await address.current();
    await settle();
    expect([client.asked, await address.current()]).toEqual([3, 'https://api.example.org']);
  });

  it('takes no loopback address from a service the merchant reaches by another name, nor anything but an http(s) URL', async () => {
    const remote = serviceAddress(healthClient('https://reputation.example', [health('http://127.0.0.1:8080')]));
    expect(await remote.current()).toBe('https://reputation.example');
    remote.learnFrom({ identity_check_endpoint: 'http://localhost:8080' });
    remote.learnFrom({ identity_check_endpoint: 'javascript:alert(1)' });
    remote.learnFrom('https://not-an-object.example');
    expect(await remote.current()).toBe('https://reputation.example');
    // Both on this machine (a local setup): the service's own spelling.
    const local = serviceAddress(healthClient('http://localhost:8080', [health('http://127.0.0.1:8080')]));
    expect(await local.current()).toBe('http://127.0.0.1:8080');
  });
});

// The client's address behind reverse proxies, over real HTTP: by default it is the TCP peer and a
// spoofed X-Forwarded-For changes nothing; with TRUST_PROXY_HOPS the address the trusted proxies
// forwarded is what IP allowlists check, and entries a client wrote itself are still ignored.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { tempDataDir } from './helpers/temp.ts';

const unknown = '0x2222222222222222222222222222222222222222';
const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

/** A server with `env`, and an enterprise key whose allowlist is `cidrs`. */
async function serverWithAllowlist(name: string, env: Record<string, string>, cidrs: string[]) {
  const config = loadConfig({ DATA_DIR: tempDataDir(name), PORT: '0', ...env });
  const server = await startServer(config, silentLogger);
  servers.push(server);
  const { id, api_key } = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
  await runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.allowlist', { accountId: id, cidrs });
  // 404 unknown_address: the key was accepted from that address; 403 ip_not_allowed: it was not.
  const lookup = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/v1/reputation/${unknown}`, { headers: { 'X-API-Key': api_key, ...headers } });
    const body = (await res.json()) as any;
    return `${res.status} ${body.error.code}`;
  };
  return lookup;
}

describe('the client address', () => {
  it('by default is the TCP peer: a spoofed X-Forwarded-For neither passes nor fails an allowlist', async () => {
    const outsider = await serverWithAllowlist('client-default-outside', {}, ['203.0.113.0/24']);
    expect(await outsider()).toBe('403 ip_not_allowed');
    expect(await outsider({ 'X-Forwarded-For': '203.0.113.7' })).toBe('403 ip_not_allowed');
    expect(await outsider({ 'X-Real-IP': '203.0.113.7' })).toBe('403 ip_not_allowed');

    const loopback = await serverWithAllowlist('client-default-loopback', {}, ['127.0.0.0/8', '::1']);
    expect(await loopback({ 'X-Forwarded-For': '198.51.100.9' })).toBe('404 unknown_address');
  });

  it('with TRUST_PROXY_HOPS=1 is the last X-Forwarded-For entry (what the proxy appended); earlier ones are ignored', async () => {
    const lookup = await serverWithAllowlist('client-trusted', { TRUST_PROXY_HOPS: '1' }, ['203.0.113.0/24']);
    expect(await lookup({ 'X-Forwarded-For': '203.0.113.7' })).toBe('404 unknown_address');
    // A client's own entry comes first; the proxy appends the peer it saw.
    expect(await lookup({ 'X-Forwarded-For': '203.0.113.7, 198.51.100.9' })).toBe('403 ip_not_allowed');
    expect(await lookup({ 'X-Forwarded-For': '198.51.100.9, 203.0.113.7' })).toBe('404 unknown_address');
    // Without the header (a request that did not pass the proxy): the TCP peer.
    expect(await lookup()).toBe('403 ip_not_allowed');
    expect(await lookup({ 'X-Forwarded-For': 'not-an-address' })).toBe('403 ip_not_allowed');
  });

  it('with TRUST_PROXY_HOPS=2 is the second entry from the right, and PROXY_IP_HEADER names another header', async () => {
    const two = await serverWithAllowlist('client-two-hops', { TRUST_PROXY_HOPS: '2' }, ['203.0.113.0/24']);
    expect(await two({ 'X-Forwarded-For': '198.51.100.1, 203.0.113.7, 192.0.2.10' })).toBe('404 unknown_address');
    expect(await two({ 'X-Forwarded-For': '203.0.113.7, 198.51.100.1, 192.0.2.10' })).toBe('403 ip_not_allowed');

    const realIp = await serverWithAllowlist('client-real-ip', { TRUST_PROXY_HOPS: '1', PROXY_IP_HEADER: 'X-Real-IP' }, ['203.0.113.0/24']);
    expect(await realIp({ 'X-Real-IP': '203.0.113.7' })).toBe('404 unknown_address');
    expect(await realIp({ 'X-Forwarded-For': '203.0.113.7' })).toBe('403 ip_not_allowed');
  });

  it('the settings are validated', () => {
    expect(loadConfig({})).toMatchObject({ trustProxyHops: 0, proxyIpHeader: 'X-Forwarded-For' });
    expect(() => loadConfig({ TRUST_PROXY_HOPS: '-1' })).toThrow(/^invalid setting TRUST_PROXY_HOPS: /);
    expect(() => loadConfig({ PROXY_IP_HEADER: 'X Forwarded' })).toThrow(/^invalid setting PROXY_IP_HEADER: /);
  });
});

// Per-IP rate limits on the routes without a key (legacy /api/v1, /openapi.json, /docs) over real
// HTTP with the server's clock: the per-second and per-minute windows with their headers and 429
// rate_limited, one count across those routes, /health and /v1 untouched, a spoofed
// X-Forwarded-For no way around it, and clients behind a trusted proxy counted apart.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { clientKey } from '../api/usage/ip-rate-limit.ts';
import { tempDataDir } from './helpers/temp.ts';

const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

// The servers' clock: 10 s into a minute.
let now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 70_000);
const second = () => (now = new Date(Math.floor(now.getTime() / 1_000) * 1_000 + 1_000));

async function start(name: string, env: Record<string, string>) {
  const server = await startServer(loadConfig({ DATA_DIR: tempDataDir(name), PORT: '0', IP_RATE_PER_MINUTE: '4', IP_RATE_PER_SECOND: '2', ...env }), silentLogger, {
    now: () => now,
  });
  servers.push(server);
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { headers });
    const text = await res.text();
    const h = (n: string) => res.headers.get(n);
    return {
      status: res.status,
      code: res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as any).error?.code : undefined,
      limit: h('x-ratelimit-limit'),
      remaining: h('x-ratelimit-remaining'),
      reset: h('x-ratelimit-reset'),
      retryAfter: h('retry-after'),
      cache: h('cache-control'),
    };
  };
  return { server, get };
}

describe('per-IP rate limits of the routes without a key', () => {
  it('a per-second and a per-minute window, shared by the legacy endpoints, /openapi.json and /docs', async () => {
    const { get } = await start('ip-limits', {});
    second();
    const minuteReset = String(Math.floor(now.getTime() / 60_000) * 60 + 60);
    const a = await get('/api/v1/x402/stats');
    expect(a).toMatchObject({ status: 200, limit: '4', remaining: '3', reset: minuteReset, cache: 'public, max-age=300', retryAfter: null });
    expect(await get('/openapi.json')).toMatchObject({ status: 200, limit: '4', remaining: '2' });
    // The third in one second: the per-second window refuses, with its own figures.
    const burst = await get('/docs');
    expect(burst).toMatchObject({ status: 429, code: 'rate_limited', limit: '2', remaining: '0', retryAfter: '1', cache: null });
    expect(burst.reset).toBe(String(Math.floor(now.getTime() / 1_000) + 1));

    second();
    expect(await get('/docs')).toMatchObject({ status: 200, remaining: '1' });
    // Unknown paths anywhere under /api/ count too, not only under /api/v1 (a scan is limited like the endpoints).
    expect(await get('/api/v2/nope')).toMatchObject({ status: 404, code: 'not_found', remaining: '0' });
    second();
    const minute = await get('/api/v1/x402/browse');
    expect(minute).toMatchObject({ status: 429, code: 'rate_limited', limit: '4', remaining: '0', reset: minuteReset });
    expect(Number(minute.retryAfter)).toBe(Number(minuteReset) - now.getTime() / 1_000);

    // /health and keyed /v1 routes are not counted or refused by it.
    for (let i = 0; i < 5; i++) expect(await get('/health')).toMatchObject({ status: 200, limit: null });
    expect(await get('/v1/stats')).toMatchObject({ status: 401, limit: null });

    // The next minute starts afresh.
    now = new Date(Number(minuteReset) * 1_000);
    expect(await get('/api/v1/erc8004/stats')).toMatchObject({ status: 200, remaining: '3' });
  });

  it('a spoofed X-Forwarded-For gets no fresh window; behind a trusted proxy each forwarded client has its own', async () => {
    const direct = await start('ip-limits-spoof', {});
    second();
    expect((await direct.get('/api/v1/x402/stats', { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(200);
    expect((await direct.get('/api/v1/x402/stats', { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(200);
    expect(await direct.get('/api/v1/x402/stats', { 'X-Forwarded-For': '203.0.113.3' })).toMatchObject({ status: 429, code: 'rate_limited' });

    const proxied = await start('ip-limits-proxy', { TRUST_PROXY_HOPS: '1' });
    second();
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      expect(await proxied.get('/api/v1/x402/stats', { 'X-Forwarded-For': client })).toMatchObject({ status: 200, remaining: '3' });
    }
    expect((await proxied.get('/api/v1/x402/stats', { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(200);
    expect(await proxied.get('/api/v1/x402/stats', { 'X-Forwarded-For': '203.0.113.1' })).toMatchObject({ status: 429, limit: '2' });
    // A client's own entry in front of the proxy's does not make it someone else.
    expect(await proxied.get('/api/v1/x402/stats', { 'X-Forwarded-For': '198.51.100.7, 203.0.113.1' })).toMatchObject({ status: 429 });
  });

  // Both windows spent at once: the minute's figures and Retry-After, since retrying in a second would be refused again.
  it('when both windows are spent, answers with the per-minute window', async () => {
    const { get } = await start('ip-limits-both', {});
    second();
    const minuteReset = Math.floor(now.getTime() / 60_000) * 60 + 60;
    for (let i = 0; i < 2; i++) expect((await get('/openapi.json')).status).toBe(200);
    second();
    for (let i = 0; i < 2; i++) expect((await get('/openapi.json')).status).toBe(200);
    const refused = await get('/openapi.json');
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', limit: '4', remaining: '0', reset: String(minuteReset) });
    expect(Number(refused.retryAfter)).toBe(minuteReset - now.getTime() / 1_000);
  });

  it('keys one IPv6 host by its /64 and an IPv4-mapped address as IPv4', () => {
    expect(clientKey('2001:db8:1:2::1')).toBe(clientKey('2001:db8:1:2:ffff::9'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    // A forwarded value that is no address is counted under that value, not with every other such value.
    expect(clientKey('unknown')).not.toBe(clientKey('garbage'));
  });

  it('IP_RATE_PER_MINUTE and IP_RATE_PER_SECOND default to 60 and 5 and are validated', async () => {
    expect(loadConfig({})).toMatchObject({ ipRatePerMinute: 60, ipRatePerSecond: 5 });
    expect(() => loadConfig({ IP_RATE_PER_MINUTE: '0' })).toThrow(/^invalid setting IP_RATE_PER_MINUTE: /);
    const { server } = await start('ip-limits-keyed', {});
    // The per-key limits are their own: a key's requests do not use the address's window.
    const { api_key } = await createAccount(server.store, { plan: 'scale' }, server.keys);
    second();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/stats`, { headers: { 'X-API-Key': api_key } });
      expect([res.status, res.headers.get('x-ratelimit-limit')]).toEqual([200, '1200']);
    }
  });
});

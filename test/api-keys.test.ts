// API keys as README and docs/decisions.md describe them: rpk_ + 32 random characters, stored only
// as SHA-256, accepted only from the X-API-Key header, refused once revoked; ids sort by creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore } from '../pipeline/store/store.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { apiKeyPrefix, createAccount } from '../api/accounts.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { newId, newSecret } from '../pipeline/secrets.ts';
import { tempDataDir } from './helpers/temp.ts';

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const unknown = '0x1111111111111111111111111111111111111111';

describe('secrets and ids', () => {
  // Every one of the 57 letters is equally likely (no modulo bias, the random pool refilled): 640,000
  // characters put each letter within 6% of its share (6 standard deviations); a bias is 20% or more.
  it('draws each character of a secret uniformly from the 57-letter alphabet', () => {
    const counts = new Map<string, number>();
    const secrets = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const secret = newSecret('rpk_');
      expect(secret).toMatch(/^rpk_[A-HJ-NP-Za-km-z2-9]{32}$/);
      secrets.add(secret);
      for (const c of secret.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(secrets.size).toBe(20_000);
    expect([...counts.keys()].sort().join('')).toBe([...alphabet].sort().join(''));
    const expected = (20_000 * 32) / alphabet.length;
    const off = [...counts].filter(([, n]) => Math.abs(n - expected) > expected * 0.06);
    expect(off).toEqual([]);
  });

  // Ids are the prefix, 10 base-36 digits of the creation millisecond, then 12 random letters: a later id sorts after.
  it('makes ids that sort by creation time', () => {
    const first = newId('acc_');
    const start = Date.now();
    while (Date.now() === start) {
      // wait for the clock to move on one millisecond
    }
    const second = newId('acc_');
    expect(first).toMatch(/^acc_[0-9a-z]{10}[A-HJ-NP-Za-km-z2-9]{12}$/);
    expect(second > first).toBe(true);
    expect(parseInt(first.slice(4, 14), 36)).toBeLessThanOrEqual(start);
  });
});

describe('API keys over HTTP', () => {
  const dataDir = tempDataDir('api-keys');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(config, silentLogger);
  });
  afterAll(() => server?.close());

  const lookup = async (headers: Record<string, string>, query = '') => {
    const res = await fetch(`${server.url}/v1/reputation/${unknown}${query}`, { headers });
    return { status: res.status, body: (await res.json()) as any };
  };

  // "Stored only as SHA-256": the api_keys row holds the key's hash and its first 10 characters, never the key.
  it('stores a key only as its SHA-256 and a 10-character prefix', async () => {
    const { id, api_key } = await createAccount(server.store, { plan: 'starter' }, server.keys);
    expect(api_key.startsWith(apiKeyPrefix)).toBe(true);
    const rows = await server.store.read(`SELECT * FROM api_keys WHERE account_id = $1`, [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(createHash('sha256').update(api_key).digest('hex'));
    expect(Object.values(rows[0]!).filter((v) => typeof v === 'string' && v.includes(api_key.slice(apiKeyPrefix.length + 6)))).toEqual([]);
    expect(Object.values(rows[0]!)).toContain(api_key.slice(0, apiKeyPrefix.length + 6));
  });

  // A missing key and an unknown key are both 401 signup_required with signup_url, each saying which it was.
  // With PORT=0 and no PUBLIC_BASE_URL, the signup_url is this server's own /signup at the port it got, not port 0.
  it('answers a missing and an unknown key with 401 signup_required, its signup_url and which of the two it was', async () => {
    const signupUrl = `${server.url}/signup`;
    const missing = await lookup({});
    expect(missing).toEqual({ status: 401, body: { error: { code: 'signup_required', message: 'an X-API-Key header is required; sign up for a key', signup_url: signupUrl } } });
    const wrong = await lookup({ 'X-API-Key': 'rpk_wrong' });
    expect(wrong).toEqual({ status: 401, body: { error: { code: 'signup_required', message: 'the API key is not valid; sign up for a key', signup_url: signupUrl } } });
    expect((await fetch(missing.body.error.signup_url)).status).toBe(200);
  });

  // Keys are never in URLs: a valid key in the query string is not accepted.
  it('does not accept a key in the URL', async () => {
    const { api_key } = await createAccount(server.store, { plan: 'starter' }, server.keys);
    expect((await lookup({ 'X-API-Key': api_key })).status).toBe(404);
    for (const name of ['api_key', 'apiKey', 'key', 'X-API-Key']) {
      expect((await lookup({}, `?${name}=${api_key}`)).body.error.code, name).toBe('signup_required');
    }
  });

  // Only one X-API-Key header holding exactly the key: not the key sent twice, nor as a bearer token.
  it('does not accept a key sent twice or in another header', async () => {
    const { api_key } = await createAccount(server.store, { plan: 'starter' }, server.keys);
    const twice = await fetch(`${server.url}/v1/reputation/${unknown}`, { headers: [['X-API-Key', api_key], ['X-API-Key', api_key]] });
    expect([twice.status, ((await twice.json()) as { error: { code: string } }).error.code]).toEqual([401, 'signup_required']);
    for (const headers of [{ Authorization: `Bearer ${api_key}` }, { 'X-API-Key': `${api_key} x` }, { 'X-API-Key': api_key.slice(0, -1) }] as Record<string, string>[]) {
      expect(await lookup(headers), JSON.stringify(headers)).toMatchObject({ status: 401, body: { error: { code: 'signup_required' } } });
    }
  });

  // A key whose revoked_at is set is refused from the next start on, and its allowlist can no longer be changed.
  it('refuses a revoked key after a restart', async () => {
    const kept = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const revoked = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    await server.close();
    const store = await openStore({ dataDir, readConnections: 1 });
    await store.write((tx) => tx.run(`UPDATE api_keys SET revoked_at = utc_now() WHERE account_id = $1`, [revoked.id]));
    await store.close();
    server = await startServer(config, silentLogger);
    expect((await lookup({ 'X-API-Key': kept.api_key })).status).toBe(404);
    expect(await lookup({ 'X-API-Key': revoked.api_key })).toMatchObject({ status: 401, body: { error: { code: 'signup_required' } } });
    const allowlist = (args: object) => runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.allowlist', args);
    await expect(allowlist({ accountId: revoked.id, cidrs: ['203.0.113.0/24'] })).rejects.toThrow(`no account ${revoked.id} with an active API key`);
    await expect(allowlist({ accountId: kept.id, cidrs: ['127.0.0.1'] })).resolves.toHaveLength(1);
  });
});

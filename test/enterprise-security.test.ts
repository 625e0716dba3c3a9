// Enterprise extras of spec section 8 over real HTTP: IP allowlists per API key and Ed25519-signed
// responses with the public key at a well-known path and the integrators' verify helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { OperationInputError } from '../api/admin/operation-input-error.ts';
import { compileAllowlist, normaliseAllowlist } from '../api/security/ip-allowlist.ts';
import { createResponseSigner, signingKeyFileName, signResponses } from '../api/security/signing.ts';
import { openStore } from '../pipeline/store/store.ts';
import { verifySignature } from '../api/security/verify-signature.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

const scored = '0x1111111111111111111111111111111111111111';
const unknown = '0x2222222222222222222222222222222222222222';

// Whether this machine can listen on the IPv6 wildcard (dual stack): then the IPv4-mapped and
// IPv6 loopback peers are checked over real sockets too.
const dualStack = await new Promise<boolean>((resolve) => {
  const probe = net.createServer();
  probe.once('error', () => resolve(false));
  probe.listen(0, '::', () => probe.close(() => resolve(true)));
});

interface Reply {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  body: any;
}

async function get(url: string, key?: string): Promise<Reply> {
  const res = await fetch(url, { headers: key ? { 'X-API-Key': key } : {} });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, body: JSON.parse(Buffer.from(bytes).toString('utf8')) };
}

describe('IP allowlist normalisation and matching', () => {
  it('normalises addresses and networks, IPv4 and IPv6, and refuses anything else', () => {
    expect(normaliseAllowlist(['203.0.113.7/24', '2001:DB8::1/32', '127.0.0.1', '::1', '::ffff:10.0.0.1', '::ffff:10.0.0.0/104', ' 203.0.113.0/24 '])).toEqual([
      '203.0.113.0/24',
      '2001:db8::/32',
      '127.0.0.1/32',
      '::1/128',
      '10.0.0.1/32',
      '10.0.0.0/8',
    ]);
    // The whole IPv4-mapped range ::ffff:0:0/96 is every IPv4 address.
    expect(normaliseAllowlist(['::ffff:0.0.0.0/96', '::ffff:10.0.0.0/100'])).toEqual(['0.0.0.0/0', '0.0.0.0/4']);
    for (const bad of ['', 'localhost', '203.0.113.0/33', '300.1.1.1', '2001:db8::/129', '10.0.0.0/8/8', 'fe80::1%eth0']) {
      expect(() => normaliseAllowlist([bad]), bad).toThrow();
    }
    // At most 100 networks per key (README), counted after de-duplication.
    const networks = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i}.0/24`);
    expect(normaliseAllowlist(networks(100))).toHaveLength(100);
    expect(normaliseAllowlist([...networks(100), '10.0.0.7/24'])).toHaveLength(100);
    expect(() => normaliseAllowlist(networks(101))).toThrow(/at most 100 networks per key/);
  });

  it('matches IPv4 peers, their IPv4-mapped IPv6 form, and IPv6 peers', () => {
    const list = compileAllowlist(normaliseAllowlist(['127.0.0.0/8', '2001:db8::/32']))!;
    expect(list.allows('127.0.0.1')).toBe(true);
    expect(list.allows('::ffff:127.0.0.1')).toBe(true);
    expect(list.allows('2001:db8:1::5')).toBe(true);
    expect(list.allows('203.0.113.1')).toBe(false);
    expect(list.allows('::ffff:203.0.113.1')).toBe(false);
    expect(list.allows('::1')).toBe(false);
    expect(list.allows(undefined)).toBe(false);
    expect(list.allows('garbage')).toBe(false);
    expect(compileAllowlist([])).toBeNull();
  });
});

describe('IP allowlists and signed responses over HTTP', () => {
  const dataDir = tempDataDir('enterprise');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
  let server: RunningServer;
  let enterprise: { key: string; keyId: string; accountId: string };
  let starter: { key: string; keyId: string };
  let publicKey: any;

  const allowlist = (args: { keyId?: string; accountId?: string; cidrs?: string[] }) =>
    runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.allowlist', args) as Promise<
      { key_id: string; plan: string; allowlist: string[] }[]
    >;

  beforeAll(async () => {
    server = await startServer(config, silentLogger);
    await (await server.jobs.run('score', { address: scored })).done;
    const e = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const s = await createAccount(server.store, { plan: 'starter' }, server.keys);
    const owner = (key: string) => {
      const v = server.keys.verify(key);
      if (!v.valid) throw new Error('key not indexed');
      return v.owner;
    };
    enterprise = { key: e.api_key, keyId: owner(e.api_key).keyId, accountId: e.id };
    starter = { key: s.api_key, keyId: owner(s.api_key).keyId };
    publicKey = (await get(`${server.url}/.well-known/reputation-signing-key`)).body;
  });
  afterAll(() => server?.close());

  it('serves the public key without an API key, as a JWK set and PEM with its key id', async () => {
    const reply = await get(`${server.url}/.well-known/reputation-signing-key`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-signature')).toBeNull();
    expect(reply.body.algorithm).toBe('Ed25519');
    expect(reply.body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: reply.body.key_id, alg: 'EdDSA', use: 'sig' }]);
    expect(reply.body.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(JSON.stringify(reply.body)).not.toMatch(/PRIVATE|"d":/);
    // The key id is the RFC 7638 thumbprint: SHA-256 of the required members in lexicographic order, base64url.
    const thumbprint = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${reply.body.keys[0].x}"}`).digest('base64url');
    expect(reply.body.key_id).toBe(thumbprint);
    // The public key is a constant: clients may cache it for five minutes.
    expect(reply.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('keeps the private key in DATA_DIR with mode 0600', () => {
    const file = path.join(dataDir, signingKeyFileName);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('signs a success response to an enterprise key; the helper verifies it with the JWK set, the JWK and the PEM', async () => {
    const reply = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    expect(reply.status).toBe(200);
    expect(reply.body.subject.address).toBe(scored);
    expect(reply.headers.get('x-signature-key-id')).toBe(publicKey.key_id);
    expect(Number(reply.headers.get('x-signature-timestamp'))).toBeCloseTo(Date.now() / 1000, -1);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(verifySignature(reply.bytes, reply.headers, publicKey)).toMatchObject({ valid: true, keyId: publicKey.key_id });
    expect(verifySignature(reply.bytes, reply.headers, publicKey.keys[0]).valid).toBe(true);
    expect(verifySignature(Buffer.from(reply.bytes).toString('utf8'), reply.headers, publicKey.public_key_pem).valid).toBe(true);
    // Headers as Node gives them (a plain object) work as well as fetch's Headers.
    expect(verifySignature(reply.bytes, Object.fromEntries(reply.headers), publicKey).valid).toBe(true);
  });

  it('signs error responses too (404 unknown_address, 405, 404 not_found)', async () => {
    for (const url of [`${server.url}/v1/reputation/${unknown}`, `${server.url}/v1/reputation/not-an-address`, `${server.url}/v1/nothing-here`]) {
      const reply = await get(url, enterprise.key);
      expect(reply.status, url).toBeGreaterThanOrEqual(400);
      expect(reply.body.error.code, url).toEqual(expect.any(String));
      expect(verifySignature(reply.bytes, reply.headers, publicKey), url).toMatchObject({ valid: true });
    }
  });

  it('refuses a tampered body, a tampered timestamp, a replay outside the window and another key', async () => {
    const reply = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    const text = Buffer.from(reply.bytes).toString('utf8');
    expect(verifySignature(text.replace(/"grade":"."/, '"grade":"A"').replace(/"value":\d+/, '"value":99'), reply.headers, publicKey)).toEqual({
      valid: false,
      reason: 'bad_signature',
    });
    const flipped = Uint8Array.from(reply.bytes);
    flipped[flipped.length - 2]! ^= 1;
    expect(verifySignature(flipped, reply.headers, publicKey)).toEqual({ valid: false, reason: 'bad_signature' });
    // Re-serialised JSON is different bytes: integrators must verify the raw body.
    expect(verifySignature(`${text} `, reply.headers, publicKey).valid).toBe(false);

    const headers = new Headers(reply.headers);
    headers.set('x-signature-timestamp', String(Number(reply.headers.get('x-signature-timestamp')) + 1));
    expect(verifySignature(reply.bytes, headers, publicKey)).toEqual({ valid: false, reason: 'bad_signature' });
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: Date.now() + 301_000 })).toEqual({ valid: false, reason: 'timestamp_out_of_range' });
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: Date.now() + 3_600_000, maxAgeSeconds: 7200 }).valid).toBe(true);

    const unsigned = new Headers(reply.headers);
    unsigned.delete('x-signature');
    expect(verifySignature(reply.bytes, unsigned, publicKey)).toEqual({ valid: false, reason: 'missing_headers' });
    const otherKey = { keys: [{ ...publicKey.keys[0], kid: 'someone-else' }] };
    expect(verifySignature(reply.bytes, reply.headers, otherKey)).toEqual({ valid: false, reason: 'unknown_key' });
    const { publicKey: stranger } = await import('node:crypto').then((c) => c.generateKeyPairSync('ed25519'));
    expect(verifySignature(reply.bytes, reply.headers, stranger)).toEqual({ valid: false, reason: 'bad_signature' });
  });

  // The helper's edge cases: malformed timestamps, the ±300 s window on both sides and at its edge,
  // a lone JWK of another key id, header names in any case, and keys that are not Ed25519.
  it('the verify helper: malformed timestamps, the window both ways, a lone JWK of another id, any header case, non-Ed25519 keys', async () => {
    const reply = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    const timestamp = Number(reply.headers.get('x-signature-timestamp'));
    for (const bad of ['abc', '1.5', '-5', '', '1e9', '1234567890123']) {
      const headers = new Headers(reply.headers);
      headers.set('x-signature-timestamp', bad);
      expect(verifySignature(reply.bytes, headers, publicKey), JSON.stringify(bad)).toEqual({ valid: false, reason: bad === '' ? 'missing_headers' : 'malformed_timestamp' });
    }
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: timestamp * 1000 + 300_000 }).valid).toBe(true);
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: timestamp * 1000 - 300_000 }).valid).toBe(true);
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: timestamp * 1000 + 300_001 })).toEqual({ valid: false, reason: 'timestamp_out_of_range' });
    expect(verifySignature(reply.bytes, reply.headers, publicKey, { now: timestamp * 1000 - 301_000 })).toEqual({ valid: false, reason: 'timestamp_out_of_range' });

    expect(verifySignature(reply.bytes, reply.headers, { ...publicKey.keys[0], kid: 'someone-else' })).toEqual({ valid: false, reason: 'unknown_key' });
    const { kid: _kid, ...withoutKid } = publicKey.keys[0];
    expect(verifySignature(reply.bytes, reply.headers, withoutKid).valid).toBe(true);
    // Without X-Signature-Key-Id, a JWK set is tried with its key.
    const noKeyId = new Headers(reply.headers);
    noKeyId.delete('x-signature-key-id');
    expect(verifySignature(reply.bytes, noKeyId, publicKey)).toEqual({ valid: true, keyId: null, timestamp });

    const canonical = { 'X-Signature': reply.headers.get('x-signature')!, 'X-Signature-Timestamp': String(timestamp), 'X-Signature-Key-Id': reply.headers.get('x-signature-key-id')! };
    expect(verifySignature(reply.bytes, canonical, publicKey)).toMatchObject({ valid: true, keyId: publicKey.key_id, timestamp });

    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    for (const key of [rsa, rsa.export({ format: 'pem', type: 'spki' }).toString(), ec]) {
      expect(verifySignature(reply.bytes, reply.headers, key)).toEqual({ valid: false, reason: 'unknown_key' });
    }
  });

  // A 304 sends no body: its signature covers the empty body, and verifies against it.
  it('signs a 304 Not Modified over the empty body', async () => {
    const first = await fetch(`${server.url}/openapi.json`, { headers: { 'X-API-Key': enterprise.key } });
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${server.url}/openapi.json`, { headers: { 'X-API-Key': enterprise.key, 'If-None-Match': etag, 'Cache-Control': 'max-age=0' } });
    const bytes = new Uint8Array(await again.arrayBuffer());
    expect(again.status).toBe(304);
    expect(bytes.length).toBe(0);
    expect(verifySignature(bytes, again.headers, publicKey)).toMatchObject({ valid: true });
  });

  it('the README recipe with curl and openssl verifies a response', async () => {
    const dir = path.join(dataDir, 'openssl');
    mkdirSync(dir);
    const reply = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    writeFileSync(path.join(dir, 'signed.bin'), Buffer.concat([Buffer.from(`${reply.headers.get('x-signature-timestamp')}.`), reply.bytes]));
    writeFileSync(path.join(dir, 'sig.bin'), Buffer.from(reply.headers.get('x-signature')!, 'base64'));
    writeFileSync(path.join(dir, 'key.pem'), publicKey.public_key_pem);
    const out = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', 'key.pem', '-rawin', '-in', 'signed.bin', '-sigfile', 'sig.bin'], { cwd: dir });
    expect(out.toString()).toContain('Signature Verified Successfully');
  });

  it('does not sign responses to other plans or to requests without a valid key', async () => {
    const paid = await get(`${server.url}/v1/reputation/${scored}`, starter.key);
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-signature')).toBeNull();
    const anonymous = await get(`${server.url}/v1/reputation/${scored}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-signature')).toBeNull();
  });

  it('only enterprise keys may have an allowlist; clearing is always allowed', async () => {
    await expect(allowlist({ keyId: starter.keyId, cidrs: ['203.0.113.0/24'] })).rejects.toThrow(OperationInputError);
    await expect(allowlist({ keyId: starter.keyId, cidrs: ['203.0.113.0/24'] })).rejects.toThrow(/enterprise.*plan starter/);
    expect(await allowlist({ keyId: starter.keyId, cidrs: [] })).toMatchObject([{ key_id: starter.keyId, allowlist: [] }]);
    await expect(allowlist({ keyId: 'key_nope', cidrs: ['203.0.113.0/24'] })).rejects.toThrow(/no active API key key_nope/);
    await expect(allowlist({ keyId: enterprise.keyId, cidrs: ['not-an-ip'] })).rejects.toThrow(/not an IPv4 or IPv6/);
    await expect(allowlist({ keyId: enterprise.keyId, accountId: enterprise.accountId })).rejects.toThrow(/exactly one/);
    expect((await get(`${server.url}/v1/reputation/${scored}`, starter.key)).status).toBe(200);
  });

  it('blocks an enterprise key from an address outside its allowlist with 403 ip_not_allowed, signed', async () => {
    const set = await allowlist({ keyId: enterprise.keyId, cidrs: ['203.0.113.0/24', '2001:db8::/32'] });
    expect(set).toEqual([{ key_id: enterprise.keyId, account_id: enterprise.accountId, plan: 'enterprise', allowlist: ['203.0.113.0/24', '2001:db8::/32'] }]);
    const blocked = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: { code: 'ip_not_allowed', message: expect.stringContaining('127.0.0.1') } });
    expect(blocked.headers.get('x-request-id')).toMatch(/^req_/);
    expect(verifySignature(blocked.bytes, blocked.headers, publicKey).valid).toBe(true);
    // Other keys and open paths are not affected.
    expect((await get(`${server.url}/v1/reputation/${scored}`, starter.key)).status).toBe(200);
    expect((await get(`${server.url}/.well-known/reputation-signing-key`)).status).toBe(200);
    // The invalid-key answer still comes first.
    expect((await get(`${server.url}/v1/reputation/${scored}`, 'rpk_wrong')).status).toBe(401);
  });

  it('lets the key through from an allowlisted address (127.0.0.1, its network, its IPv4-mapped IPv6 form)', async () => {
    for (const cidrs of [['203.0.113.0/24', '127.0.0.1'], ['127.0.0.0/8'], ['::ffff:127.0.0.1']]) {
      await allowlist({ accountId: enterprise.accountId, cidrs });
      const reply = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
      expect(reply.status, cidrs.join()).toBe(200);
    }
    expect((await allowlist({ keyId: enterprise.keyId }))[0]!.allowlist).toEqual(['127.0.0.1/32']);
  });

  it('keeps the history append-only and the newest list in force after a restart, with the same signing key', async () => {
    await allowlist({ keyId: enterprise.keyId, cidrs: ['203.0.113.0/24'] });
    expect((await get(`${server.url}/v1/reputation/${scored}`, enterprise.key)).status).toBe(403);
    const history = await server.store.read('SELECT version, cidrs FROM api_key_ip_allowlists WHERE key_id = $1 ORDER BY version', [enterprise.keyId]);
    expect(history.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
    expect(history.at(-1)!.cidrs).toEqual(['203.0.113.0/24']);

    const keyFile = readFileSync(path.join(dataDir, signingKeyFileName), 'utf8');
    await server.close();
    server = await startServer(config, silentLogger);
    expect(readFileSync(path.join(dataDir, signingKeyFileName), 'utf8')).toBe(keyFile);
    expect(statSync(path.join(dataDir, signingKeyFileName)).mode & 0o777).toBe(0o600);
    expect((await get(`${server.url}/.well-known/reputation-signing-key`)).body).toEqual(publicKey);

    const blocked = await get(`${server.url}/v1/reputation/${scored}`, enterprise.key);
    expect(blocked.status).toBe(403);
    expect(verifySignature(blocked.bytes, blocked.headers, publicKey).valid).toBe(true);
    await allowlist({ keyId: enterprise.keyId, cidrs: [] });
    expect((await get(`${server.url}/v1/reputation/${scored}`, enterprise.key)).status).toBe(200);
  });

  it('tightens a signing key file others could read back to 0600 on start', async () => {
    await server.close();
    chmodSync(path.join(dataDir, signingKeyFileName), 0o644);
    server = await startServer(config, silentLogger);
    expect(statSync(path.join(dataDir, signingKeyFileName)).mode & 0o777).toBe(0o600);
  });

  it.runIf(dualStack)('on a dual-stack listener: ::ffff:127.0.0.1 matches 127.0.0.1, ::1 matches only ::1', async () => {
    await server.close();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '::' }), silentLogger);
    const port = /:(\d+)$/.exec(server.url)![1];
    const via4 = `http://127.0.0.1:${port}/v1/reputation/${scored}`; // peer ::ffff:127.0.0.1
    const via6 = `http://[::1]:${port}/v1/reputation/${scored}`; // peer ::1
    await allowlist({ keyId: enterprise.keyId, cidrs: ['127.0.0.1'] });
    expect((await get(via4, enterprise.key)).status).toBe(200);
    const refused = await get(via6, enterprise.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('::1');
    await allowlist({ keyId: enterprise.keyId, cidrs: ['::1'] });
    expect((await get(via6, enterprise.key)).status).toBe(200);
    expect((await get(via4, enterprise.key)).status).toBe(403);
  });
});

describe('what a restart reads back', () => {
  const dataDir = tempDataDir('enterprise-restart');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
  let server: RunningServer;
  afterAll(() => server?.close());
  const allowlist = (args: { keyId?: string; accountId?: string; cidrs?: string[] }) =>
    runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.allowlist', args);
  const restart = async (between?: (store: Awaited<ReturnType<typeof openStore>>) => Promise<void>) => {
    await server.close();
    if (between) {
      const store = await openStore({ dataDir, readConnections: 1 });
      await between(store);
      await store.close();
    }
    server = await startServer(config, silentLogger);
  };

  // After a restart each key's newest list is in force: a later wider list, and a later cleared one.
  it('serves the newest allowlist version of each key after a restart', async () => {
    server = await startServer(config, silentLogger);
    const widened = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const cleared = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    await allowlist({ accountId: widened.id, cidrs: ['203.0.113.0/24'] });
    await allowlist({ accountId: widened.id, cidrs: ['127.0.0.0/8'] });
    await allowlist({ accountId: cleared.id, cidrs: ['203.0.113.0/24'] });
    await allowlist({ accountId: cleared.id, cidrs: [] });
    await restart();
    expect((await get(`${server.url}/v1/reputation/${unknown}`, widened.api_key)).status).toBe(404);
    expect((await get(`${server.url}/v1/reputation/${unknown}`, cleared.api_key)).status).toBe(404);
  });

  // A cancelled enterprise account gets 403 account_cancelled, unsigned (only active enterprise keys are signed);
  // and a key file group-readable (0640) is tightened to 0600 as well.
  it('does not sign answers to a cancelled enterprise account; tightens a group-readable key file', async () => {
    const account = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    expect((await get(`${server.url}/v1/reputation/${unknown}`, account.api_key)).headers.get('x-signature')).not.toBeNull();
    chmodSync(path.join(dataDir, signingKeyFileName), 0o640);
    await restart((store) => store.write((tx) => tx.run(`UPDATE accounts SET status = 'cancelled' WHERE id = $1`, [account.id])));
    expect(statSync(path.join(dataDir, signingKeyFileName)).mode & 0o777).toBe(0o600);
    for (const url of [`${server.url}/v1/reputation/${unknown}`, `${server.url}/v1/nothing-here`]) {
      const reply = await get(url, account.api_key);
      expect(reply.status, url).toBeGreaterThanOrEqual(400);
      expect(reply.headers.get('x-signature'), url).toBeNull();
    }
    expect((await get(`${server.url}/v1/reputation/${unknown}`, account.api_key)).body.error.code).toBe('account_cancelled');
  });

  // X-Signature-Timestamp is the signing time in whole Unix seconds (rounded down).
  it('stamps the signing second', async () => {
    const signer = createResponseSigner(generateKeyPairSync('ed25519').privateKey);
    const app = new Koa<{ account: { plan: 'enterprise' } }>();
    app.use(signResponses(signer, silentLogger, undefined, () => 1_700_000_000_999));
    app.use((ctx) => {
      ctx.state.account = { plan: 'enterprise' };
      ctx.body = { ok: true };
    });
    const listener = http.createServer(app.callback());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const reply = await get(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/`);
      expect(reply.headers.get('x-signature-timestamp')).toBe('1700000000');
      expect(verifySignature(reply.bytes, reply.headers, signer.publicKeyPem, { now: 1_700_000_000_999 })).toEqual({ valid: true, keyId: signer.keyId, timestamp: 1_700_000_000 });
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('reputation accounts allowlist', () => {
  const dataDir = tempDataDir('allowlist-cli');
  const env = cliEnv(dataDir);

  it('sets, shows and clears the list of an enterprise account; refuses other plans; usage errors exit 2', async () => {
    const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { id: string };
    const [account, free] = (await Promise.all(['enterprise', 'free'].map((plan) => runCli(['accounts', 'create', '--plan', plan, '--json'], env)))).map((r) =>
      lastLine(r.stdout),
    );
    const set = await runCli(['accounts', 'allowlist', '--account', account!.id, '--set', '203.0.113.0/24, 2001:db8::/32', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    const change = JSON.parse(set.stdout.trim()) as { key_id: string; allowlist: string[] };
    expect(change).toMatchObject({ plan: 'enterprise', allowlist: ['203.0.113.0/24', '2001:db8::/32'] });

    const [shown, refused, help, ...usage] = await Promise.all([
      runCli(['accounts', 'allowlist', '--key-id', change.key_id], env),
      runCli(['accounts', 'allowlist', '--account', free!.id, '--set', '203.0.113.0/24'], env),
      runCli(['accounts', 'allowlist', '--help'], env),
      ...[
        ['--account', account!.id, '--set', '203.0.113.0/33'],
        ['--set', '203.0.113.0/24'],
        ['--account', account!.id, '--set', '10.0.0.0/8', '--clear'],
      ].map((args) => runCli(['accounts', 'allowlist', ...args], env)),
    ]);
    expect(shown!.stdout).toBe(`key ${change.key_id} (account ${account!.id}, plan enterprise): 203.0.113.0/24, 2001:db8::/32\n`);
    expect(refused!.code).toBe(1);
    expect(refused!.stderr.trim()).toMatch(/^reputation: IP allowlists are an enterprise feature; account \S+ has plan free$/);
    expect(help!.code).toBe(0);
    expect(help!.stdout).toContain('--set <networks>');
    for (const result of usage) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(usage[0]!.stderr).toContain('not an IPv4 or IPv6 address or CIDR network');

    const cleared = await runCli(['accounts', 'allowlist', '--key-id', change.key_id, '--clear'], env);
    expect(cleared.stdout).toBe(`key ${change.key_id} (account ${account!.id}, plan enterprise): none (any address)\n`);
  }, 180_000);
});

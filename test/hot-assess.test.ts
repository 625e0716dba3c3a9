// The hot path of POST /v1/assess (api/routes/hot-assess.ts), over HTTP: it answers what the Koa
// route answers (the same status, headers in the same order, the same body but for a session's
// secrets), counts a call once, and hands every request that is not its common case to Koa, having
// counted nothing: with the body it already read when the body or the limits were the reason.
// The Koa route is reached for comparison at /v1/assess/ (the router takes the trailing slash).
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { compileAllowlist } from '../api/security/ip-allowlist.ts';
import { sha256Hex } from '../pipeline/secrets.ts';
import { verifySignature } from '../api/security/verify-signature.ts';
import type { PlanName } from '../api/plans.ts';
import { tempDataDir } from './helpers/temp.ts';
import { rawHeader, rawRequest, type RawAnswer as Answer } from './helpers/raw-answer.ts';
import { assessingServiceEnv, verifiedLogin } from './helpers/identity.ts';

const day = 86_400_000;
const reserved = (n: number) => `0x${'0'.repeat(39)}${n}`;
const listedEth = '0x098b716b8aaf21512996dc57eb0615e2383e2f96';
const fullPolicy = { require_kyc: true, require_sanctions_clear: true, min_age: 21, blocked_jurisdictions: ['IR', 'KP'], allowed_jurisdictions: ['US', 'NL'] };


// Values that differ between two answers to the same request: its id, the clock, the counts, a signature.
const perRequest = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-quota-used', 'x-signature', 'x-signature-timestamp']);
// A denial's session is new on every answer.
const sessionFields = /"(session_id|poll_secret|verify_url|poll_url)":"[^"]*"/g;

describe('hot path of POST /v1/assess', () => {
  const dataDir = tempDataDir('hot-assess');
  let server: RunningServer;
  let clock = Date.now();
  let pro: string;

  beforeAll(async () => {
    server = await startServer(loadConfig(assessingServiceEnv(dataDir)), silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    pro = await warmKey('pro');
  });
  afterAll(() => server?.close());
  // Each test starts ten seconds into a minute of its own: its calls stay in one rate-limit window.
  beforeEach(() => {
    clock = Math.ceil(clock / 60_000) * 60_000 + 10_000;
  });

  /** POST `body` (a string is sent as it is) to `target` over a socket of its own. */
  const post = (target: string, body: unknown, headers: Record<string, string> = { 'X-API-Key': pro }, contentType = 'application/json') => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return rawRequest(`${server.url}${target}`, { method: 'POST', agent: false, headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), 'X-Forwarded-For': '192.0.2.1', ...headers } }, text);
  };
  /**
   * A new account's key, after one live call (through Koa, the first of the account's cycle): the
   * hot path counts only against a cycle counter already loaded. Its quota has 1 call used.
   */
  const warmKey = async (plan: PlanName) => {
    const key = (await createAccount(server.store, { plan }, server.keys)).api_key;
    const first = await post('/v1/assess', { address: reserved(1) }, { 'X-API-Key': key });
    if (first.status !== 200) throw new Error(`the first call answered ${first.status}`);
    return key;
  };
  const header = rawHeader;
  /** `request`'s answer, and whether the hot path (not Koa) answered it. */
  const answeredBy = async (request: () => Promise<Answer>) => {
    const before = server.hotAssessments();
    const answer = await request();
    return { answer, hot: server.hotAssessments() - before === 1 };
  };
  /** The same request to the hot path and to the Koa route: asserts which answered and that the answers match. */
  const sameAsKoa = async (body: unknown, headers?: Record<string, string>, contentType?: string) => {
    const hot = await answeredBy(() => post('/v1/assess', body, headers, contentType));
    const koa = await answeredBy(() => post('/v1/assess/', body, headers, contentType));
    expect(koa.hot).toBe(false);
    const comparable = (a: Answer) => ({
      status: a.status,
      headers: a.headers.map(([name, value]) => [name, perRequest.has(name.toLowerCase()) ? '*' : value]),
      body: a.body.replace(sessionFields, '"$1":"*"'),
    });
    expect(comparable(hot.answer)).toEqual(comparable(koa.answer));
    return hot;
  };

  it('answers test mode and live wallets as the Koa route does: status, headers in order, body', async () => {
    for (const body of [
      { address: reserved(1), policy: fullPolicy, signer: { address: reserved(1), network: 'evm' }, test: true },
      { address: reserved(6), policy: fullPolicy, test: true },
      { address: '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c' },
      { address: '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c', policy: { require_kyc: true }, signer: { address: null, network: 'evm' } },
      { address: '0x55fb6e92683190f4cade79f1b676ed77b599fbed', policy: fullPolicy, signer: { address: listedEth, network: 'evm' } },
    ]) {
      const { answer, hot } = await sameAsKoa(body);
      expect(hot).toBe(true);
      expect(answer.status).toBe(200);
      expect(header(answer, 'cache-control')).toBe('no-store');
    }
  });

  it('answers the refusals of the identity call itself: token_expired with a session, invalid_credential', async () => {
    const login = await verifiedLogin(server.url, pro);
    expect((await sameAsKoa({ operator_token: login.operatorToken, policy: { require_kyc: true } })).answer.status).toBe(200);
    clock += day;
    const expired = await sameAsKoa({ operator_token: login.operatorToken });
    expect([expired.hot, expired.answer.status, JSON.parse(expired.answer.body).error.code]).toEqual([true, 401, 'token_expired']);
    expect(header(expired.answer, 'cache-control')).toBe('no-store');
    const unknown = await sameAsKoa({ operator_token: 'opc_unknownunknownunknownunknownunkn' });
    expect([unknown.hot, unknown.answer.status, JSON.parse(unknown.answer.body).error.code]).toEqual([true, 401, 'invalid_credential']);
    const unreserved = await sameAsKoa({ address: reserved(9), test: true });
    expect([unreserved.hot, unreserved.answer.status, JSON.parse(unreserved.answer.body).error.code]).toEqual([true, 400, 'invalid_test_address']);
  });

  it('counts a live call once on the quota and the rate limit, a test-mode call not at all', async () => {
    const starter = await warmKey('starter');
    const live = { address: reserved(1) };
    const first = await answeredBy(() => post('/v1/assess', live, { 'X-API-Key': starter }));
    const second = await answeredBy(() => post('/v1/assess', live, { 'X-API-Key': starter }));
    expect([first.hot, second.hot]).toEqual([true, true]);
    expect(Number(header(second.answer, 'x-quota-used'))).toBe(Number(header(first.answer, 'x-quota-used')) + 1);
    expect(Number(header(second.answer, 'x-ratelimit-remaining'))).toBe(Number(header(first.answer, 'x-ratelimit-remaining')) - 1);
    const test = await answeredBy(() => post('/v1/assess', { ...live, test: true }, { 'X-API-Key': starter }));
    expect(test.hot).toBe(true);
    expect(header(test.answer, 'x-quota-used')).toBeUndefined();
    const third = await post('/v1/assess', live, { 'X-API-Key': starter });
    expect(Number(header(third, 'x-quota-used'))).toBe(Number(header(second.answer, 'x-quota-used')) + 1);
  });

  it('hands a body it cannot take to Koa with what it read, counted once there', async () => {
    const key = { 'X-API-Key': await warmKey('starter') };
    for (const [body, code, message] of [
      ['{"address": ', 'invalid_request', /not valid JSON/],
      ['"0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c"', 'invalid_request', /not valid JSON/],
      ['{"address":"0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c","__proto__":{"test":true}}', 'invalid_request', /not valid JSON/],
      [{ address: '0x1234' }, 'invalid_address', /^address: not an EVM address/],
      [{ address: reserved(1), colour: 'red' }, 'invalid_request', /^colour: not a field/],
    ] as const) {
      const { answer, hot } = await sameAsKoa(body, key);
      expect(hot).toBe(false);
      expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([400, code]);
      expect(JSON.parse(answer.body).error.message).toMatch(message);
    }
    // A key that only looks like "__proto__" deep in a nested body: read as the body parser reads it.
    const nested = `{"\\"__proto__":1,"a":${'['.repeat(15_000)}${']'.repeat(15_000)}}`;
    const deep = await sameAsKoa(nested, key);
    expect([deep.hot, deep.answer.status, JSON.parse(deep.answer.body).error.message]).toEqual([false, 400, '"__proto__: not a field of this request']);
    // A byte-order mark is dropped as the body parser drops it.
    expect((await sameAsKoa(`\uFEFF${JSON.stringify({ address: reserved(1), test: true })}`, key)).answer.status).toBe(200);
    // Not one of those was counted: the next live call is the account's second.
    const counted = await post('/v1/assess', { address: reserved(1) }, key);
    expect(header(counted, 'x-quota-used')).toBe('2');
    // Without assess in the plan the body is not even read.
    const free = (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key;
    const unpaid = await sameAsKoa({ address: reserved(1) }, { 'X-API-Key': free });
    expect([unpaid.hot, unpaid.answer.status, JSON.parse(unpaid.answer.body).error.entitlement]).toEqual([false, 402, 'assess']);
  });

  it('leaves to Koa, unread, what its headers put outside the common case', async () => {
    const body = { address: reserved(1), test: true };
    for (const [what, headers, contentType, status] of [
      ['no key', {}, 'application/json', 401],
      ['an unknown key', { 'X-API-Key': 'rpk_nottherealkeynottherealkey' }, 'application/json', 401],
      ['another media type', { 'X-API-Key': pro }, 'text/plain', 415],
      ['JSON in another charset', { 'X-API-Key': pro }, 'application/json; charset=latin1', 200],
    ] as const) {
      const { answer, hot } = await sameAsKoa(body, headers, contentType);
      expect([what, hot, answer.status]).toEqual([what, false, status]);
    }
    const big = await sameAsKoa({ ...body, padding: 'x'.repeat(33 * 1024) });
    expect([big.hot, big.answer.status, JSON.parse(big.answer.body).error.code]).toEqual([false, 413, 'payload_too_large']);
    const chunked = await answeredBy(
      () =>
        new Promise<Answer>((resolve, reject) => {
          const req = http.request(`${server.url}/v1/assess`, { method: 'POST', agent: false, headers: { 'X-API-Key': pro, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, headers: [], body: '' }));
          });
          req.on('error', reject);
          req.write(JSON.stringify(body).slice(0, 10));
          req.end(JSON.stringify(body).slice(10));
        }),
    );
    expect([chunked.hot, chunked.answer.status]).toEqual([false, 200]);
  });

  it('signs the answers of a plan with signed responses as the Koa route does, errors included', async () => {
    const enterprise = { 'X-API-Key': await warmKey('enterprise') };
    const publicKey = JSON.parse((await rawRequest(`${server.url}/.well-known/reputation-signing-key`, {})).body);
    for (const [body, status] of [
      [{ address: reserved(1), policy: fullPolicy, signer: { address: reserved(1), network: 'evm' } }, 200],
      [{ address: '0x55fb6e92683190f4cade79f1b676ed77b599fbed', policy: { require_kyc: true } }, 200],
      [{ address: reserved(9), test: true }, 400],
      [{ operator_token: 'opc_unknownunknownunknownunknownunkn' }, 401],
    ] as const) {
      const { answer, hot } = await sameAsKoa(body, enterprise);
      expect([hot, answer.status]).toEqual([true, status]);
      const headers = Object.fromEntries(answer.headers.map(([name, value]) => [name.toLowerCase(), value]));
      expect(verifySignature(answer.body, headers, publicKey)).toMatchObject({ valid: true, keyId: publicKey.key_id });
    }
  });

  it('leaves to Koa the keys it does not serve: an IP allowlist, a cancelled account', async () => {
    // Only enterprise keys hold allowlists: an allowlist, or a cancellation, put on a warm
    // unsigned key in the index checks the hot path's own test of it.
    const allowlisted = await warmKey('pro');
    const cancelled = await warmKey('pro');
    const owner = (key: string) => {
      const verified = server.keys.verify(key);
      if (!verified.valid) throw new Error('not a key');
      return verified.owner;
    };
    server.keys.add(sha256Hex(allowlisted), { ...owner(allowlisted), ipAllowlist: compileAllowlist(['198.51.100.0/24']) });
    server.keys.add(sha256Hex(cancelled), { ...owner(cancelled), status: 'cancelled' });
    for (const [key, code] of [
      [allowlisted, 'ip_not_allowed'],
      [cancelled, 'account_cancelled'],
    ] as const) {
      const { answer, hot } = await sameAsKoa({ address: reserved(1) }, { 'X-API-Key': key });
      expect([hot, answer.status, JSON.parse(answer.body).error?.code]).toEqual([false, 403, code]);
    }
  });

  it('past the rate limit: Koa answers the 429, with the quota headers; only the calls answered are counted', async () => {
    const key = { 'X-API-Key': await warmKey('starter') };
    const before = server.hotAssessments();
    // Starter: 10 a second; the warm-up call took one of this second's.
    const answers = await Promise.all(Array.from({ length: 14 }, () => post('/v1/assess', { address: reserved(1) }, key)));
    const answered = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429);
    expect([answered, refused.length]).toEqual([9, 5]);
    for (const answer of refused) {
      expect(header(answer, 'x-quota-used')).toMatch(/^\d+$/);
      expect(header(answer, 'retry-after')).toBeDefined();
    }
    expect(server.hotAssessments() - before).toBe(answered);
    clock += 1_000;
    expect(header(await post('/v1/assess', { address: reserved(1) }, key), 'x-quota-used')).toBe(String(1 + answered + 1));
  });

  it('a failure of the identity call: 503 api_error, not billed, no quota headers, as the Koa route answers it', async () => {
    const key = { 'X-API-Key': await warmKey('starter') };
    const failing = vi.spyOn(server.identity, 'assess').mockRejectedValue(new Error('the store is gone'));
    try {
      const { answer, hot } = await sameAsKoa({ address: reserved(1) }, key);
      expect([hot, answer.status, JSON.parse(answer.body).error.code]).toEqual([true, 503, 'api_error']);
      expect(header(answer, 'x-quota-used')).toBeUndefined();
    } finally {
      failing.mockRestore();
    }
    expect(header(await post('/v1/assess', { address: reserved(1) }, key), 'x-quota-used')).toBe('2');
  });

  it('a client gone before its body arrived: nothing answered, nothing counted, the server serves on', async () => {
    const starter = await warmKey('starter');
    const before = server.hotAssessments();
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/v1/assess`, { method: 'POST', agent: false, headers: { 'X-API-Key': starter, 'content-type': 'application/json', 'content-length': '100' } });
      req.on('error', () => resolve());
      req.write('{"address":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    const next = await post('/v1/assess', { address: reserved(1) }, { 'X-API-Key': starter });
    expect([next.status, header(next, 'x-quota-used')]).toEqual([200, '2']);
    expect(server.hotAssessments()).toBe(before + 1);
  });
});

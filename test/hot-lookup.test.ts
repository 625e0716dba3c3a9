// The hot path of cached lookups (api/reputation/hot-lookup.ts), over HTTP: it answers exactly
// what the Koa route answers (the same headers in the same order, the same body), counts like it,
// and hands every request that is not its common case to Koa, having counted nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount, type KeyOwner } from '../api/accounts.ts';
import type { Store } from '../pipeline/store/store.ts';
import { UsageMeter } from '../api/usage/meter.ts';
import { changeIpAllowlist, compileAllowlist } from '../api/security/ip-allowlist.ts';
import { cycleAt } from '../api/usage/cycle.ts';
import { sha256Hex } from '../pipeline/secrets.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import type { PlanName } from '../api/plans.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { rawHeader, rawRequest, type RawAnswer as Answer } from './helpers/raw-answer.ts';

// From test/fixtures/import/transfers.csv: each scored by the run.
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const payer = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';


describe('hot path of cached lookups', () => {
  const dataDir = tempDataDir('hot-lookup');
  let server: RunningServer;
  let now = new Date();

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger, { now: () => now });
    await importFile({ store: server.store, log: silentLogger }, { file: path.join(repoRoot, 'test/fixtures/import/transfers.csv'), kind: 'transfers', onBadRows: 'skip' });
    await (await server.jobs.run('score', {})).done;
    const [run] = await server.store.read(`SELECT epoch_ms(scored_at) AS ms FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Number(run!.ms));
  }, 60_000);
  afterAll(() => server?.close());
  // Each test starts ten seconds into a minute, so its one-second steps stay in one rate limit window.
  const nextMinute = () => (now = new Date(Math.ceil(now.getTime() / 60_000) * 60_000 + 10_000));
  beforeEach(nextMinute);

  const account = (plan: PlanName) => createAccount(server.store, { plan }, server.keys);
  const tick = () => (now = new Date(now.getTime() + 1_000));
  const get = (target: string, headers: Record<string, string>, method = 'GET') => rawRequest(`${server.url}${target}`, { method, headers });
  const lookup = (key: string | undefined, target = `/v1/reputation/${payee}`, method = 'GET') => get(target, key === undefined ? {} : { 'X-API-Key': key }, method);
  const header = rawHeader;
  /** `answer` of `request`, and whether the hot path (not Koa) answered it. */
  const answeredBy = async (request: () => Promise<Answer>) => {
    const before = server.hotLookups();
    const answer = await request();
    return { answer, hot: server.hotLookups() - before === 1 };
  };

  it('answers a cached lookup with the Koa route’s headers, in order, and body, for each plan shape', async () => {
    for (const plan of ['free', 'scale'] as const) {
      const { api_key } = await account(plan);
      tick();
      const miss = await answeredBy(() => lookup(api_key));
      tick();
      const hit = await answeredBy(() => lookup(api_key));
      expect([miss.hot, hit.hot]).toEqual([false, true]);
      expect(hit.answer.status).toBe(200);
      expect(hit.answer.body).toBe(miss.answer.body);
      expect(hit.answer.headers.map(([name]) => name)).toEqual(miss.answer.headers.map(([name]) => name));
      const names = miss.answer.headers.map(([name]) => name);
      expect(names).toEqual([
        'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Quota-Limit', 'X-Quota-Used', 'X-Quota-Reset',
        'Cache-Control', 'Content-Type', 'Content-Length', 'Date', 'Connection', 'Keep-Alive',
      ]);
      // The same values but for what moves with each request.
      for (const [name, value] of miss.answer.headers) {
        const hot = header(hit.answer, name)!;
        if (name === 'X-Request-Id') expect([value, hot].every((id) => /^req_/.test(id)) && value !== hot).toBe(true);
        else if (name === 'X-RateLimit-Remaining') expect(Number(hot)).toBe(Number(value) - 1);
        else if (name === 'X-Quota-Used') expect(Number(hot)).toBe(Number(value) + 1);
        else if (name !== 'Date') expect(`${name}: ${hot}`).toBe(`${name}: ${value}`);
      }
      // The free shape is the redacted record, the paid one the full.
      expect(JSON.parse(hit.answer.body).subject === undefined).toBe(plan === 'free');
    }
  });

  it('serves any spelling of an address the route accepts: a checksummed one is the lower-case record', async () => {
    const { api_key } = await account('scale');
    tick();
    const lower = await lookup(api_key);
    tick();
    const mixed = await answeredBy(() => lookup(api_key, `/v1/reputation/0x74F29Ee5E3abd86b4d83A8F41eb26857E5ceef0c`));
    expect(mixed.hot).toBe(true);
    expect(mixed.answer.body).toBe(lower.body);
  });

  it('hands every other request to Koa, which answers it as before', async () => {
    const { api_key } = await account('scale');
    tick();
    await lookup(api_key); // loads the account's usage counter and caches the record
    const enterprise = await account('enterprise');
    const blocked = await account('enterprise');
    const [change] = await changeIpAllowlist(server.store, { accountId: blocked.id }, ['203.0.113.0/24']);
    server.keys.setIpAllowlist(change!.key_id, change!.allowlist);
    // Only enterprise keys hold allowlists, and their answers are signed (Koa's) anyway: an
    // allowlist on an unsigned key in the index, set once its counter is loaded, checks the hot
    // path's own test of it.
    const unsignedBlocked = await account('scale');
    tick();
    await lookup(unsignedBlocked.api_key);
    const unsigned = server.keys.verify(unsignedBlocked.api_key);
    if (unsigned.valid) server.keys.add(sha256Hex(unsignedBlocked.api_key), { ...unsigned.owner, ipAllowlist: compileAllowlist(['203.0.113.0/24']) });
    // Cancelled once its counter is loaded, so only the status check keeps it from the hot path.
    const cancelled = await account('starter');
    tick();
    await lookup(cancelled.api_key);
    const verified = server.keys.verify(cancelled.api_key);
    if (verified.valid) server.keys.add(sha256Hex(cancelled.api_key), { ...verified.owner, status: 'cancelled' });
    const cases: [string, () => Promise<Answer>, (answer: Answer) => void][] = [
      ['a query', () => lookup(api_key, `/v1/reputation/${payee}?chain=base`), (a) => expect(JSON.parse(a.body).chains).toHaveLength(1)],
      ['the view variant', () => lookup(api_key, `/v1/reputation/${payee}?view=summary`), (a) => expect(JSON.parse(a.body).grade).toMatch(/^[A-F]$/)],
      ['a trailing slash', () => lookup(api_key, `/v1/reputation/${payee}/`), (a) => expect(a.status).toBe(200)],
      ['an escaped path', () => lookup(api_key, `/v1/reputation/%30x${payee.slice(2)}`), (a) => expect(a.status).toBe(200)],
      ['another case of the path', () => lookup(api_key, `/V1/Reputation/${payee}`), (a) => expect(a.status).toBe(200)],
      ['HEAD', () => lookup(api_key, undefined, 'HEAD'), (a) => expect([a.status, a.body, header(a, 'Content-Length')]).toEqual([200, '', expect.any(String)])],
      ['no key', () => lookup(undefined), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([401, 'signup_required'])],
      ['an unknown key', () => lookup('rpk_unknown'), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([401, 'signup_required'])],
      ['a cancelled account', () => lookup(cancelled.api_key), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([403, 'account_cancelled'])],
      ['an IP allowlist', () => lookup(blocked.api_key), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([403, 'ip_not_allowed'])],
      ['an IP allowlist on an unsigned key', () => lookup(unsignedBlocked.api_key), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([403, 'ip_not_allowed'])],
      ['signed responses', () => lookup(enterprise.api_key), (a) => expect([a.status, header(a, 'X-Signature')]).toEqual([200, expect.any(String)])],
      ['an address not cached', () => lookup(api_key, `/v1/reputation/${payer}`), (a) => expect(JSON.parse(a.body).subject.address).toBe(payer)],
      ['an invalid address', () => lookup(api_key, '/v1/reputation/0x1234'), (a) => expect([a.status, JSON.parse(a.body).error.code]).toEqual([400, 'invalid_address'])],
    ];
    const seen: string[] = [];
    for (const [name, request, check] of cases) {
      tick();
      const { answer, hot } = await answeredBy(request);
      seen.push(`${name}: ${hot ? 'hot path' : 'Koa'}`);
      check(answer);
    }
    expect(seen).toEqual(cases.map(([name]) => `${name}: Koa`));
    // The enterprise key's counter is loaded now, yet its answers stay signed: still Koa.
    tick();
    expect(await answeredBy(() => lookup(enterprise.api_key))).toMatchObject({ hot: false, answer: { status: 200 } });
    // The address Koa just cached is a hit for the hot path.
    tick();
    expect(await answeredBy(() => lookup(api_key, `/v1/reputation/${payer}`))).toMatchObject({ hot: true, answer: { status: 200 } });
  });

  it('a failure inside it is handed to Koa, which answers 500 in the error format, and the server keeps serving', async () => {
    const { api_key } = await account('scale');
    tick();
    expect(header((await answeredBy(() => lookup(api_key))).answer, 'X-Quota-Used')).toBe('1');
    const find = server.records.find;
    server.records.find = () => {
      throw new Error('injected fault');
    };
    try {
      tick();
      const failed = await answeredBy(() => lookup(api_key));
      expect([failed.hot, failed.answer.status, JSON.parse(failed.answer.body).error.code]).toEqual([false, 500, 'internal_error']);
      // Koa counted the lookup before the fault; a request the service failed is not billed.
      expect(header(failed.answer, 'X-Quota-Used')).toBeUndefined();
    } finally {
      server.records.find = find;
    }
    tick();
    const next = await answeredBy(() => lookup(api_key));
    expect(next).toMatchObject({ hot: true, answer: { status: 200 } });
    expect(header(next.answer, 'X-Quota-Used')).toBe('2');
  });

  it('leaves a request to Koa once the usage meter is closed (a server stopping)', async () => {
    const { accountId, ...owner } = (server.keys.verify((await account('scale')).api_key) as { owner: KeyOwner }).owner;
    const meter = new UsageMeter({ store: server.store, now: () => now, flushIntervalMs: 0 });
    await meter.count({ accountId, ...owner }, 1);
    expect(meter.prepare({ accountId, ...owner }, 1)).toBeDefined();
    await meter.close();
    expect(meter.prepare({ accountId, ...owner }, 1)).toBeUndefined();
    // Koa's count() refuses too (503 unavailable), so no call is served after the last flush and lost.
    await expect(meter.count({ accountId, ...owner }, 1)).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    const [row] = await server.store.read(`SELECT sum(calls)::BIGINT AS calls FROM usage_counts WHERE account_id = $1`, [accountId]);
    expect(Number(row!.calls)).toBe(1);
  });

  it('a charge taken back after a flush leaves its cycle as a negative row, summed with the rest', async () => {
    const { accountId, ...owner } = (server.keys.verify((await account('scale')).api_key) as { owner: KeyOwner }).owner;
    const meter = new UsageMeter({ store: server.store, now: () => now, flushIntervalMs: 0 });
    const sum = async () => {
      const [row] = await server.store.read(`SELECT sum(calls)::BIGINT AS calls, count(*)::INTEGER AS rows FROM usage_counts WHERE account_id = $1`, [accountId]);
      return [Number(row!.calls), row!.rows];
    };
    const { charge } = await meter.count({ accountId, ...owner }, 3);
    await meter.flush();
    expect(await sum()).toEqual([3, 1]);
    meter.refund(charge);
    expect((await meter.count({ accountId, ...owner }, 1)).quota).toMatchObject({ used: 1 });
    await meter.close();
    expect(await sum()).toEqual([1, 2]);
  });

  it('a flush that fails keeps its counts for the next one, merged with those counted since', async () => {
    const { accountId, ...owner } = (server.keys.verify((await account('scale')).api_key) as { owner: KeyOwner }).owner;
    let writes = 0;
    const failingOnce: Store = { ...server.store, write: (unit) => (writes++ === 0 ? Promise.reject(new Error('disk full')) : server.store.write(unit)) };
    const meter = new UsageMeter({ store: failingOnce, now: () => now, flushIntervalMs: 0 });
    await meter.count({ accountId, ...owner }, 3);
    await expect(meter.flush()).rejects.toThrow('disk full');
    await meter.count({ accountId, ...owner }, 2);
    await meter.close();
    const rows = await server.store.read(`SELECT calls FROM usage_counts WHERE account_id = $1`, [accountId]);
    expect(rows).toEqual([{ calls: '5' }]);
  });

  it('counts one call per lookup whichever path answers, and leaves refusals to Koa without counting them', async () => {
    const { id, api_key } = await account('free');
    const [created] = await server.store.read(`SELECT epoch_ms(created_at) AS ms FROM accounts WHERE id = $1`, [id]);
    const cycle = cycleAt(new Date(Number(created!.ms)), now);
    await server.store.write((tx) =>
      tx.run(`INSERT INTO usage_counts (account_id, plan, cycle_start, cycle_end, calls, flushed_at) VALUES ($1, 'free', make_timestamp($2::BIGINT * 1000), make_timestamp($3::BIGINT * 1000), 4996, utc_now())`, [
        id,
        String(cycle.start.getTime()),
        String(cycle.end.getTime()),
      ]),
    );
    const seen: string[] = [];
    const step = async (request: () => Promise<Answer>) => {
      const { answer, hot } = await answeredBy(request);
      const code = answer.status === 200 ? 'ok' : JSON.parse(answer.body).error.code;
      seen.push(`${hot ? 'hot' : 'Koa'} ${answer.status} ${code} used ${header(answer, 'X-Quota-Used')} remaining ${header(answer, 'X-RateLimit-Remaining')}`);
    };
    tick();
    await step(() => lookup(api_key)); // Koa: the cycle's counter is loaded
    const hits = server.records.hits;
    await step(() => lookup(api_key)); // the same second: the free plan's 1 per second refuses
    expect(server.records.hits).toBe(hits);
    tick();
    await step(() => lookup(api_key));
    tick();
    await step(() => lookup(api_key, `/v1/reputation/${payee}?chain=base`));
    tick();
    await step(() => lookup(api_key)); // the 5,000th call
    tick();
    await step(() => lookup(api_key)); // past the free quota
    expect(seen).toEqual([
      'Koa 200 ok used 4997 remaining 59',
      'Koa 429 rate_limited used 4997 remaining 0',
      'hot 200 ok used 4998 remaining 58',
      'Koa 200 ok used 4999 remaining 57',
      'hot 200 ok used 5000 remaining 56',
      // Koa takes the rate limit before it counts the call (as for any refused call).
      'Koa 429 quota_exceeded used 5000 remaining 55',
    ]);
    // The next billing cycle: its counter is loaded by Koa, then the hot path counts on it.
    seen.length = 0;
    now = cycle.end;
    nextMinute();
    await step(() => lookup(api_key));
    tick();
    await step(() => lookup(api_key));
    expect(seen).toEqual(['Koa 200 ok used 1 remaining 59', 'hot 200 ok used 2 remaining 58']);
  });
});

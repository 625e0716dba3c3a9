// Plans, rate limits, quotas and usage over real HTTP against a real DuckDB: entitlement gates
// (402), cancelled accounts (403), per-second and per-minute windows (429 rate_limited with its
// headers), quota headers, the free plan's hard stop, paid overage, enterprise without a quota,
// what is free, and usage that survives a clean restart and shows in `reputation usage`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { entitlementNames, hasEntitlement, planNames, plans, type PlanName } from '../api/plans.ts';
import { entitled } from '../api/middleware/entitlement.ts';
import { errorMiddleware } from '../api/middleware/errors.ts';
import type { AuthState } from '../api/middleware/api-key.ts';
import { addMonthsClamped, cycleAt } from '../api/usage/cycle.ts';
import { cycleUsage, usageReport } from '../api/usage/report.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

// From test/fixtures/import/transfers.csv: scored after the import.
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';

describe('plans, limits and usage over HTTP', () => {
  const dataDir = tempDataDir('plans');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
  let server: RunningServer;
  // The server's clock: every request below moves it on a second unless a test wants one window.
  let now = new Date();
  const tick = (ms = 1_000) => (now = new Date(now.getTime() + ms));
  const start = () => startServer(config, silentLogger, { now: () => now, usageFlushIntervalMs: 0 });

  beforeAll(async () => {
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    server = await start();
    await (await server.jobs.run('score', {})).done;
    now = new Date(Date.now() + 60_000);
  });
  afterAll(() => server?.close());

  const account = (plan: PlanName) => createAccount(server.store, { plan }, server.keys);
  const lookup = async (key: string, query = '', address = payee) => {
    const res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const createdAt = async (id: string) => {
    const [row] = await server.store.read(`SELECT epoch_ms(created_at) AS ms FROM accounts WHERE id = $1`, [id]);
    return new Date(Number(row!.ms));
  };
  const seedUsage = (id: string, plan: PlanName, start: Date, end: Date, calls: number) =>
    server.store.write((tx) =>
      tx.run(`INSERT INTO usage_counts (account_id, plan, cycle_start, cycle_end, calls, flushed_at) VALUES ($1, $2, make_timestamp($3::BIGINT * 1000), make_timestamp($4::BIGINT * 1000), $5::BIGINT, utc_now())`, [
        id,
        plan,
        String(start.getTime()),
        String(end.getTime()),
        String(calls),
      ]),
    );

  it('the catalogue: free is redacted and gated; paid plans get the paid features; enterprise adds allowlists and signing', () => {
    expect(plans.free).toMatchObject({ monthlyPriceUsd: 0, includedCalls: 5_000, overagePerCallUsd: null, ratePerMinute: 60, ratePerSecond: 1, cacheTtlSeconds: 300 });
    expect(plans.starter).toMatchObject({ monthlyPriceUsd: 49, includedCalls: 100_000, overagePerCallUsd: 0.0005, ratePerMinute: 300 });
    expect(plans.growth).toMatchObject({ monthlyPriceUsd: 199, includedCalls: 500_000, overagePerCallUsd: 0.0004, ratePerMinute: 600 });
    expect(plans.scale).toMatchObject({ monthlyPriceUsd: 999, includedCalls: 5_000_000, overagePerCallUsd: 0.0003, ratePerMinute: 1_200 });
    expect(plans.enterprise).toMatchObject({ monthlyPriceUsd: null, includedCalls: null, overageByContract: true });
    // Every column of the README's table ("Plans and limits"): rates per minute and per second, cache
    // TTL and batch size, for each plan (pro carries growth's numbers).
    const table = Object.fromEntries(planNames.map((name) => [name, [plans[name].ratePerMinute, plans[name].ratePerSecond, plans[name].cacheTtlSeconds, plans[name].batchMaxAddresses]]));
    expect(table).toEqual({
      free: [60, 1, 300, 0],
      starter: [300, 10, 60, 100],
      growth: [600, 20, 60, 100],
      pro: [600, 20, 60, 100],
      scale: [1_200, 40, 60, 100],
      enterprise: [6_000, 100, 60, 100],
    });
    expect(plans.pro).toMatchObject({ monthlyPriceUsd: 199, includedCalls: 500_000, overagePerCallUsd: 0.0004 });
    for (const plan of planNames) {
      for (const e of entitlementNames) {
        const expected = plan === 'free' ? false : e === 'ip_allowlists' || e === 'signed_responses' || e === 'custom_limits' ? plan === 'enterprise' : true;
        expect([plan, e, hasEntitlement(plan, e)]).toEqual([plan, e, expected]);
      }
    }
  });

  it('every plan: view=full and custom policies answer 402 on free only, and a refused request is not counted', async () => {
    for (const plan of planNames) {
      const { api_key } = await account(plan);
      for (const query of ['?view=full', '?view=summary&min_grade=D', '?min_transactions=1']) {
        tick();
        const res = await lookup(api_key, query);
        expect([plan, query, res.status]).toEqual([plan, query, plan === 'free' ? 402 : 200]);
        if (plan === 'free') {
          expect(res.body.error).toMatchObject({ code: 'payment_required', plan: 'free' });
          expect(res.headers.get('x-ratelimit-limit')).toBe('60');
          expect(res.headers.get('x-quota-used')).toBeNull();
        }
      }
      tick();
      const plain = await lookup(api_key);
      expect(plain.status).toBe(200);
      expect('subject' in plain.body).toBe(plan !== 'free');
      if (plan === 'free') expect(plain.headers.get('x-quota-used')).toBe('1');
    }
  });

  it("Cache-Control is private with the plan's cache TTL on both shapes (the body's cache.ttl_seconds agrees); errors carry none", async () => {
    const seen: Record<string, string[]> = {};
    for (const plan of planNames) {
      const { api_key } = await account(plan);
      const ttl = plans[plan].cacheTtlSeconds;
      tick();
      const record = await lookup(api_key);
      tick();
      const summary = await lookup(api_key, '?view=summary');
      tick();
      const unknown = await lookup(api_key, '', '0x1111111111111111111111111111111111111111');
      expect([plan, record.status, summary.status, summary.body.cache.ttl_seconds, unknown.status]).toEqual([plan, 200, 200, ttl, 404]);
      expect(unknown.headers.get('cache-control')).toBeNull();
      seen[plan] = [record.headers.get('cache-control')!, summary.headers.get('cache-control')!];
    }
    expect(seen).toEqual({
      free: ['private, max-age=300', 'private, max-age=300'],
      starter: ['private, max-age=60', 'private, max-age=60'],
      growth: ['private, max-age=60', 'private, max-age=60'],
      pro: ['private, max-age=60', 'private, max-age=60'],
      scale: ['private, max-age=60', 'private, max-age=60'],
      enterprise: ['private, max-age=60', 'private, max-age=60'],
    });

    // An enterprise account's own cache TTL ("configurable", spec 8) wins over the plan's.
    const { id, api_key } = await account('enterprise');
    await runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.limits', { accountId: id, cacheTtlSeconds: 900 });
    tick();
    const full = await lookup(api_key, '?view=full');
    expect([full.headers.get('cache-control'), full.body.cache.ttl_seconds]).toEqual(['private, max-age=900', 900]);
    expect((await lookup(api_key)).headers.get('cache-control')).toBe('private, max-age=900');
  });

  it('an endpoint a plan lacks answers 402 payment_required through entitled()', async () => {
    const app = new Koa();
    app.use(errorMiddleware(silentLogger));
    const router = new Router<AuthState>();
    router.use(async (ctx, next) => {
      ctx.state.account = { keyId: 'key_t', accountId: 'acc_t', plan: ctx.get('X-Plan') as PlanName, status: 'active' };
      await next();
    });
    // The gate answers before the endpoint runs: a refused call does no work.
    let served = 0;
    const serve = (ctx: Koa.Context) => {
      served++;
      ctx.body = { ok: true };
    };
    router.post('/v1/assess', entitled('assess'), serve);
    router.get('/v1/signed', entitled('signed_responses'), serve);
    app.use(router.routes());
    const listener = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    try {
      for (const plan of planNames) {
        const assess = await fetch(`${base}/v1/assess`, { method: 'POST', headers: { 'X-Plan': plan } });
        expect([plan, assess.status]).toEqual([plan, plan === 'free' ? 402 : 200]);
        const signed = await fetch(`${base}/v1/signed`, { headers: { 'X-Plan': plan } });
        expect([plan, signed.status]).toEqual([plan, plan === 'enterprise' ? 200 : 402]);
        if (signed.status === 402) expect(((await signed.json()) as any).error.code).toBe('payment_required');
      }
      // assess on every plan but free, signed on enterprise only.
      expect(served).toBe(planNames.filter((plan) => plan !== 'free').length + planNames.filter((plan) => plan === 'enterprise').length);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('the per-second window: free answers one request per second, then 429 rate_limited with Retry-After and the window headers', async () => {
    const { api_key } = await account('free');
    // Ten seconds into a minute: the three requests below share one minute window (a whole second
    // picked at :59 put the third into the next minute, a 1-in-60 failure).
    now = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 70_000);
    const first = await lookup(api_key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((Math.floor(now.getTime() / 60_000) + 1) * 60)));
    tick(400);
    const second = await lookup(api_key);
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('rate_limited');
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.headers.get('x-ratelimit-limit')).toBe('1');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(second.headers.get('x-ratelimit-reset')).toBe(String(Math.floor(now.getTime() / 1_000) + 1));
    // Refused requests use neither the rate nor the quota; the 429 shows the quota as it stands.
    expect(second.headers.get('x-quota-used')).toBe('1');
    expect(second.headers.get('x-quota-limit')).toBe(first.headers.get('x-quota-limit'));
    expect(second.headers.get('x-quota-reset')).toBe(first.headers.get('x-quota-reset'));
    tick(600);
    const third = await lookup(api_key);
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('58');
    expect(third.headers.get('x-quota-used')).toBe('2');
  });

  it('the per-minute window: starter serves 300 a minute (10 a second), then 429 until the minute ends', async () => {
    const { api_key } = await account('starter');
    const minute = Math.ceil(now.getTime() / 60_000) * 60_000;
    now = new Date(minute);
    for (let s = 0; s < 30; s++) {
      now = new Date(minute + s * 1_000);
      const answers = await Promise.all(Array.from({ length: 10 }, () => lookup(api_key)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      // An 11th in the same second hits the per-second window.
      if (s === 0) {
        const burst = await lookup(api_key);
        expect(burst.status).toBe(429);
        expect(burst.headers.get('x-ratelimit-limit')).toBe('10');
      }
    }
    now = new Date(minute + 45_500);
    const over = await lookup(api_key);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(over.headers.get('x-ratelimit-limit')).toBe('300');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.headers.get('x-ratelimit-reset')).toBe(String(minute / 1_000 + 60));
    expect(over.headers.get('retry-after')).toBe('15');
    expect(over.body.error.message).toContain('rate limit of the starter plan (300 per minute) reached');
    now = new Date(minute + 60_000);
    const next = await lookup(api_key);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('299');
    expect(next.headers.get('x-quota-used')).toBe('301');
  });

  it('quota headers on success give the limit, the calls used and the end of the billing cycle', async () => {
    const { id, api_key } = await account('growth');
    tick();
    const res = await lookup(api_key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-quota-limit')).toBe('500000');
    expect(res.headers.get('x-quota-used')).toBe('1');
    expect(res.headers.get('x-quota-reset')).toBe(addMonthsClamped(await createdAt(id), 1).toISOString());
    // Unknown addresses are lookups too: counted.
    tick();
    const unknown = await lookup(api_key, '', '0x1111111111111111111111111111111111111111');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-quota-used')).toBe('2');
  });

  it('free stops at its included calls with 429 quota_exceeded and the quota headers', async () => {
    const { id, api_key } = await account('free');
    const cycle = cycleAt(await createdAt(id), now);
    await seedUsage(id, 'free', cycle.start, cycle.end, 4_998);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      tick();
      const res = await lookup(api_key);
      seen.push(`${res.status} ${res.body.error?.code ?? 'ok'} ${res.headers.get('x-quota-used')}/${res.headers.get('x-quota-limit')} ${res.headers.get('x-quota-reset')}`);
    }
    const reset = cycle.end.toISOString();
    expect(seen).toEqual([`200 ok 4999/5000 ${reset}`, `200 ok 5000/5000 ${reset}`, `429 quota_exceeded 5000/5000 ${reset}`]);
    // The next cycle starts from zero.
    now = new Date(cycle.end.getTime() + 1_000);
    const renewed = await lookup(api_key);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('x-quota-used')).toBe('1');
    expect(renewed.headers.get('x-quota-reset')).toBe(addMonthsClamped(await createdAt(id), 2).toISOString());
    now = new Date(Date.now() + 120_000);
  });

  // The instant a cycle ends is the next cycle's: the quota starts afresh there, and the ended cycle is closed.
  it('a call at the exact end of a billing cycle counts in the next one, and the ended cycle is closed', async () => {
    const { id, api_key } = await account('growth');
    const cycle = cycleAt(await createdAt(id), now);
    now = new Date(cycle.end.getTime() - 1_000);
    expect((await lookup(api_key)).headers.get('x-quota-used')).toBe('1');
    now = cycle.end;
    const renewed = await lookup(api_key);
    expect([renewed.headers.get('x-quota-used'), renewed.headers.get('x-quota-reset')]).toEqual(['1', addMonthsClamped(await createdAt(id), 2).toISOString()]);
    const shown = JSON.parse((await runCli(['usage', '--account', id, '--json'], cliEnv(dataDir))).stdout.trim().split('\n').at(-1)!);
    expect(shown.past).toMatchObject([{ cycle_end: cycle.end.toISOString(), status: 'closed', calls: 1 }]);
    now = new Date(Date.now() + 180_000);
  });

  // usage_counts holds one row per flush: loading a cycle sums them all, and only this account's.
  it("the quota continues from the sum of the cycle's stored rows, of this account only", async () => {
    const { id, api_key } = await account('growth');
    const cycle = cycleAt(await createdAt(id), now);
    await seedUsage(id, 'growth', cycle.start, cycle.end, 2);
    await seedUsage(id, 'growth', cycle.start, cycle.end, 3);
    await seedUsage('acc_someone_else', 'growth', cycle.start, cycle.end, 1_000);
    tick();
    expect((await lookup(api_key)).headers.get('x-quota-used')).toBe('6');
  });

  // A plan changed by hand within a cycle: the cycle is billed at the plan of its latest counts.
  it('a past cycle is billed at the plan its calls were last counted under', async () => {
    const { id } = await account('starter');
    const cycle = cycleAt(await createdAt(id), now);
    await seedUsage(id, 'growth', cycle.start, cycle.end, 400_000);
    await seedUsage(id, 'starter', cycle.start, cycle.end, 200_000);
    const report = await usageReport(server.store, id, cycle.end);
    expect(report.past).toMatchObject([{ plan: 'starter', calls: 600_000, included: 100_000, overage_calls: 500_000, overage_usd: 250 }]);
  });

  it('paid plans keep serving past the included calls: overage', async () => {
    const { id, api_key } = await account('starter');
    const cycle = cycleAt(await createdAt(id), now);
    await seedUsage(id, 'starter', cycle.start, cycle.end, 100_000);
    for (let i = 1; i <= 3; i++) {
      tick();
      const res = await lookup(api_key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-quota-used')).toBe(String(100_000 + i));
      expect(res.headers.get('x-quota-limit')).toBe('100000');
    }
    const shown = await runCli(['usage', '--account', id, '--json'], cliEnv(dataDir));
    expect(shown.code).toBe(0);
    const report = JSON.parse(shown.stdout.trim().split('\n').at(-1)!);
    expect(report.current).toMatchObject({ calls: 100_003, included: 100_000, overage_calls: 3, overage_usd: 0.0015, status: 'open', plan: 'starter' });
  });

  it('a 429 rate_limited shows the quota as stored, also on a route that counts nothing and before any counted call', async () => {
    const { id, api_key } = await account('free');
    const created = await createdAt(id);
    const cycle = cycleAt(created, now);
    await seedUsage(id, 'free', cycle.start, cycle.end, 42);
    tick();
    const stats = () => fetch(`${server.url}/v1/stats`, { headers: { 'X-API-Key': api_key } });
    expect((await stats()).headers.get('x-quota-used')).toBeNull();
    const refused = await stats();
    expect(refused.status).toBe(429);
    expect([refused.headers.get('x-quota-limit'), refused.headers.get('x-quota-used'), refused.headers.get('x-quota-reset')]).toEqual([
      '5000',
      '42',
      cycle.end.toISOString(),
    ]);
  });

  it('enterprise has no quota: no X-Quota-* headers, rate limit headers still', async () => {
    const { api_key } = await account('enterprise');
    tick();
    const res = await lookup(api_key);
    expect(res.status).toBe(200);
    expect([...res.headers.keys()].filter((h) => h.startsWith('x-quota'))).toEqual([]);
    expect(res.headers.get('x-ratelimit-limit')).toBe('6000');
  });

  it('free endpoints and refused requests are not counted', async () => {
    const { id, api_key } = await account('free');
    for (let i = 0; i < 3; i++) {
      tick();
      expect((await fetch(`${server.url}/health`, { headers: { 'X-API-Key': api_key } })).status).toBeLessThan(600);
    }
    tick();
    expect((await fetch(`${server.url}/v1/stats`, { headers: { 'X-API-Key': api_key } })).headers.get('x-quota-used')).toBeNull();
    tick();
    expect((await fetch(`${server.url}/api/v1/x402/stats`)).status).toBeLessThan(500);
    tick();
    expect((await lookup(api_key, '', '0x12345')).status).toBe(400);
    tick();
    expect((await lookup(api_key, '?view=full')).status).toBe(402);
    tick();
    const res = await lookup(api_key);
    expect(res.headers.get('x-quota-used')).toBe('1');
    const shown = JSON.parse((await runCli(['usage', '--account', id, '--json'], cliEnv(dataDir))).stdout.trim().split('\n').at(-1)!);
    expect(shown.current.calls).toBe(1);
  });

  it('usage survives a clean restart, cancelled accounts get 403, and `reputation usage` shows current and past cycles', async () => {
    const { id, api_key } = await account('growth');
    const cancelled = await account('starter');
    for (let i = 0; i < 4; i++) {
      tick();
      expect((await lookup(api_key)).status).toBe(200);
    }
    await server.close();
    // Cancel one account the way an operator would: replace its row.
    const env = cliEnv(dataDir);
    const { openStore } = await import('../pipeline/store/store.ts');
    const store = await openStore({ dataDir, readConnections: 1 });
    await store.write(async (tx) => {
      const [row] = await tx.all(`SELECT name, plan, created_at FROM accounts WHERE id = $1`, [cancelled.id]);
      await tx.run(`DELETE FROM accounts WHERE id = $1`, [cancelled.id]);
      await tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, $2, $3, 'cancelled', $4::TIMESTAMP)`, [cancelled.id, (row!.name as string | null) ?? null, String(row!.plan), String(row!.created_at)]);
    });
    await store.close();

    // Without a server the CLI opens the database itself: the 4 calls were flushed on close.
    const offline = await runCli(['usage', '--account', id, '--json'], env);
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout.trim().split('\n').at(-1)!).current).toMatchObject({ calls: 4, included: 500_000, overage_calls: 0, overage_usd: 0 });

    server = await start();
    tick();
    const refused = await lookup(cancelled.api_key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('account_cancelled');
    tick();
    const after = await lookup(api_key);
    expect(after.headers.get('x-quota-used')).toBe('5');

    // A month on: a new cycle; the old one is closed and listed as past.
    const first = cycleAt(await createdAt(id), now);
    now = new Date(first.end.getTime() + 5_000);
    expect((await lookup(api_key)).headers.get('x-quota-used')).toBe('1');
    // With the server running the CLI goes through its admin endpoint (which flushes first).
    const online = await runCli(['usage', '--account', id, '--json'], env);
    expect(online.code).toBe(0);
    const report = JSON.parse(online.stdout.trim().split('\n').at(-1)!);
    expect(report.current).toMatchObject({ calls: 1, cycle_start: first.end.toISOString(), status: 'open' });
    expect(report.past).toEqual([
      { cycle_start: first.start.toISOString(), cycle_end: first.end.toISOString(), status: 'closed', plan: 'growth', calls: 5, included: 500_000, overage_calls: 0, overage_usd: 0 },
    ]);
    const text = await runCli(['usage', '--account', id], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`account ${id} (plan growth, active)`);
    expect(text.stdout).toMatch(/current cycle \S+ \.\. \S+: 1 calls used of 500000; overage 0 calls, \$0\.0000 so far/);
    expect(text.stdout).toContain('past cycles:');
    const unknown = await runCli(['usage', '--account', 'acc_nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account acc_nope');
    expect((await runCli(['usage'], env)).code).toBe(2);
  });
});

describe('usage flushes on its timer', () => {
  const dataDir = tempDataDir('plans-flush');

  it('counts reach usage_counts within the flush interval, without a stop', async () => {
    const server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger, { usageFlushIntervalMs: 100 });
    try {
      const { id, api_key } = await createAccount(server.store, { plan: 'scale' }, server.keys);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/v1/reputation/0x1111111111111111111111111111111111111111`, { headers: { 'X-API-Key': api_key } });
        expect(res.status).toBe(404);
      }
      let flushed = 0;
      for (let waited = 0; waited < 5_000 && flushed < 3; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const [row] = await server.store.read(`SELECT coalesce(sum(calls), 0)::INTEGER AS n FROM usage_counts WHERE account_id = $1`, [id]);
        flushed = Number(row!.n);
      }
      expect(flushed).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('billing cycles and overage arithmetic', () => {
  it('cycles are monthly from creation, the day clamped to the month end', () => {
    const created = new Date('2025-01-31T10:00:00Z');
    expect(cycleAt(created, new Date('2025-02-15T00:00:00Z'))).toEqual({ start: created, end: new Date('2025-02-28T10:00:00Z') });
    expect(cycleAt(created, new Date('2025-02-28T10:00:00Z')).start).toEqual(new Date('2025-02-28T10:00:00Z'));
    expect(cycleAt(created, new Date('2025-03-31T09:59:59Z')).end).toEqual(new Date('2025-03-31T10:00:00Z'));
    expect(cycleAt(created, new Date('2026-03-01T00:00:00Z')).start).toEqual(new Date('2026-02-28T10:00:00Z'));
    expect(cycleAt(created, new Date('2024-12-01T00:00:00Z')).start).toEqual(created);
  });

  it('overage is exact per plan and by contract for enterprise', () => {
    const s = new Date('2025-01-01T00:00:00Z');
    const e = new Date('2025-02-01T00:00:00Z');
    const at = new Date('2025-03-01T00:00:00Z');
    expect(cycleUsage('starter', s, e, 100_007, at)).toMatchObject({ overage_calls: 7, overage_usd: 0.0035, status: 'closed' });
    expect(cycleUsage('growth', s, e, 1_500_000, at)).toMatchObject({ overage_calls: 1_000_000, overage_usd: 400 });
    expect(cycleUsage('scale', s, e, 5_000_003, at)).toMatchObject({ overage_calls: 3, overage_usd: 0.0009 });
    // 11 × 0.0003 in floating point is 0.0032999999999999995: counted in $0.0001 units it is exact.
    expect(cycleUsage('scale', s, e, 5_000_011, at)).toMatchObject({ overage_calls: 11, overage_usd: 0.0033 });
    expect(cycleUsage('free', s, e, 5_000, at)).toMatchObject({ overage_calls: 0, overage_usd: 0 });
    expect(cycleUsage('enterprise', s, e, 9_999_999, at)).toMatchObject({ included: null, overage_calls: 0, overage_usd: null });
  });
});

// Enterprise custom limits (spec section 8) over real HTTP and the real CLI: an account's own rate
// limits and included calls, set with `reputation accounts limits` while the server runs, change
// the 429 threshold and the X-RateLimit-* / X-Quota-* headers at once, survive a restart, show in
// `reputation usage`, and are refused for other plans.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { accountLimits } from '../api/usage/limits.ts';
import { cycleAt } from '../api/usage/cycle.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { applyMigrations, listMigrations } from '../pipeline/store/migrations.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { OperationInputError } from '../api/admin/operation-input-error.ts';
import { tempDataDir } from './helpers/temp.ts';

const unknown = '0x1111111111111111111111111111111111111111';

describe('enterprise custom limits', () => {
  const dataDir = tempDataDir('account-limits');
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
  const env = cliEnv(dataDir);
  let server: RunningServer;
  // The server's clock, on a whole second well inside a minute.
  let now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 120_000);
  const start = () => startServer(config, silentLogger, { now: () => now, usageFlushIntervalMs: 0 });

  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server?.close());

  // Every lookup of an unknown address is a counted call (404), so no scoring run is needed.
  const lookup = async (key: string) => {
    const res = await fetch(`${server.url}/v1/reputation/${unknown}`, { headers: { 'X-API-Key': key } });
    const body = (await res.json()) as any;
    const h = (name: string) => res.headers.get(name);
    return { status: res.status, code: body.error?.code as string, message: body.error?.message as string, limit: h('x-ratelimit-limit'), remaining: h('x-ratelimit-remaining'), quota: h('x-quota-limit'), used: h('x-quota-used'), reset: h('x-quota-reset') };
  };
  const limits = async (args: string[]) => {
    const out = await runCli(['accounts', 'limits', ...args], env);
    return { ...out, json: out.code === 0 && args.includes('--json') ? JSON.parse(out.stdout.trim().split('\n').at(-1)!) : undefined };
  };

  it('the overrides change the 429 thresholds and the quota headers at once, and `default` returns to the plan', async () => {
    const { id, api_key } = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const plain = await lookup(api_key);
    expect(plain).toMatchObject({ status: 404, limit: '6000', quota: null, used: null });

    // Through the running server's admin endpoint.
    const set = await limits(['--account', id, '--rate-per-minute', '5', '--rate-per-second', '2', '--quota', '3', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toEqual({
      account_id: id,
      plan: 'enterprise',
      overrides: { ratePerMinute: 5, ratePerSecond: 2, includedCalls: 3, cacheTtlSeconds: null },
      limits: { ratePerMinute: 5, ratePerSecond: 2, includedCalls: 3, cacheTtlSeconds: 60 },
    });

    const [created] = await server.store.read(`SELECT epoch_ms(created_at) AS ms FROM accounts WHERE id = $1`, [id]);
    const reset = cycleAt(new Date(Number(created!.ms)), now).end.toISOString();
    now = new Date(now.getTime() + 60_000);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await lookup(api_key));
    expect(seen.map((r) => [r.status, r.limit, r.remaining, r.quota, r.used])).toEqual([
      [404, '5', '4', '3', '2'],
      [404, '5', '3', '3', '3'],
      // The third in one second meets the account's per-second rate: not counted, the quota shown.
      [429, '2', '0', '3', '3'],
    ]);
    expect(seen[0]!.reset).toBe(reset);
    expect(seen[2]).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('rate limit of this account (2 per second)') });

    // Past the included calls an enterprise account keeps being served: overage by contract.
    now = new Date(now.getTime() + 1_000);
    expect((await lookup(api_key)).used).toBe('4');
    expect((await lookup(api_key)).used).toBe('5');
    now = new Date(now.getTime() + 1_000);
    expect(await lookup(api_key)).toMatchObject({ status: 404, remaining: '0', used: '6' });
    // The sixth in the minute meets the account's per-minute rate.
    now = new Date(now.getTime() + 1_000);
    expect(await lookup(api_key)).toMatchObject({ status: 429, code: 'rate_limited', limit: '5', remaining: '0' });

    const usage = await runCli(['usage', '--account', id, '--json'], env);
    expect(JSON.parse(usage.stdout.trim().split('\n').at(-1)!).current).toMatchObject({ calls: 6, included: 3, overage_calls: 3, overage_usd: null });

    const back = await limits(['--account', id, '--rate-per-second', 'default', '--rate-per-minute', 'default', '--json']);
    expect(back.json.limits).toEqual({ ratePerMinute: 6000, ratePerSecond: 100, includedCalls: 3, cacheTtlSeconds: 60 });
    expect(await lookup(api_key)).toMatchObject({ status: 404, limit: '6000', quota: '3', used: '7' });

    // Without a quota a 429 has no quota headers either.
    expect((await limits(['--account', id, '--rate-per-second', '1', '--quota', 'default', '--json'])).code).toBe(0);
    now = new Date(now.getTime() + 1_000);
    expect(await lookup(api_key)).toMatchObject({ status: 404, quota: null, used: null });
    expect(await lookup(api_key)).toMatchObject({ status: 429, code: 'rate_limited', quota: null, used: null, reset: null });
  });

  // An account's own limits reach only that account's keys in the running server, not other accounts'.
  it('an override leaves every other account on its own limits', async () => {
    const mine = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const other = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    expect((await limits(['--account', mine.id, '--rate-per-minute', '7', '--quota', '4'])).code).toBe(0);
    expect(await lookup(mine.api_key)).toMatchObject({ status: 404, limit: '7', quota: '4', used: '1' });
    expect(await lookup(other.api_key)).toMatchObject({ status: 404, limit: '6000', quota: null, used: null });
  });

  it('overrides are kept in the accounts table: a restart serves them; shown without a server too', async () => {
    const { id, api_key } = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    expect((await limits(['--account', id, '--rate-per-second', '1'])).code).toBe(0);
    await server.close();

    const shown = await limits(['--account', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`account ${id} (plan enterprise)`);
    expect(shown.stdout).toMatch(/--rate-per-second\s+1\/s\s+\(custom\)/);
    expect(shown.stdout).toMatch(/--quota\s+unlimited\s+\(plan\)/);

    server = await start();
    now = new Date(now.getTime() + 60_000);
    expect(await lookup(api_key)).toMatchObject({ status: 404, limit: '6000' });
    expect(await lookup(api_key)).toMatchObject({ status: 429, limit: '1' });
  });

  it('other plans may not have them; bad values are usage errors', async () => {
    const starter = await createAccount(server.store, { plan: 'starter' }, server.keys);
    const refused = await limits(['--account', starter.id, '--rate-per-minute', '100000']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`custom limits are an enterprise feature; account ${starter.id} has plan starter`);
    // Resetting to the plan's value is always allowed, and showing.
    expect((await limits(['--account', starter.id, '--quota', 'default'])).code).toBe(0);
    expect((await limits(['--account', 'acc_nope'])).stderr).toContain('no account acc_nope');
    for (const bad of [['--rate-per-minute', '0'], ['--cache-ttl', '86401'], ['--rate-per-second', 'fast']]) {
      expect((await limits(['--account', starter.id, ...bad])).code, bad.join(' ')).toBe(2);
    }
  });

  // The admin operation (behind the CLI and the admin endpoint) holds values to the README's bounds, edges included.
  it('the operation accepts each bound and refuses one past it, or a fraction', async () => {
    const { id } = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const op = (change: object) => runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, keys: server.keys }, 'accounts.limits', { accountId: id, ...change });
    for (const edges of [{ ratePerMinute: 1_000_000, ratePerSecond: 100_000, includedCalls: 0, cacheTtlSeconds: 86_400 }, { ratePerMinute: 1, ratePerSecond: 1, cacheTtlSeconds: 0 }]) {
      expect(((await op(edges)) as { overrides: object }).overrides).toMatchObject(edges);
    }
    for (const bad of [{ ratePerMinute: 1_000_001 }, { ratePerSecond: 100_001 }, { includedCalls: -1 }, { cacheTtlSeconds: 86_401 }, { cacheTtlSeconds: 1.5 }]) {
      await expect(op(bad), JSON.stringify(bad)).rejects.toThrow(OperationInputError);
    }
  });

  /**
   * A new enterprise account with its own included calls, and the clock two minutes into its first
   * cycle, whatever the clock earlier tests left (a cycle taken from that clock could end within the
   * tests' next minute, on a slow run).
   */
  const enterpriseInFirstCycle = async (includedCalls: number) => {
    const { id, api_key } = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    expect((await limits(['--account', id, '--quota', String(includedCalls)])).code).toBe(0);
    const [created] = await server.store.read(`SELECT epoch_ms(created_at) AS ms FROM accounts WHERE id = $1`, [id]);
    now = new Date(Number(created!.ms) + 120_000);
    return { id, api_key, first: cycleAt(new Date(Number(created!.ms)), now) };
  };

  it('a closed cycle is billed by the included calls of its time, not by an override set later', async () => {
    const { id, api_key, first } = await enterpriseInFirstCycle(2);
    for (const used of ['1', '2', '3']) expect((await lookup(api_key)).used).toBe(used);
    // A month on, the contract gives the account 10 calls per cycle.
    now = new Date(first.end.getTime() + 5_000);
    expect((await limits(['--account', id, '--quota', '10'])).code).toBe(0);
    expect(await lookup(api_key)).toMatchObject({ quota: '10', used: '1' });
    const report = JSON.parse((await runCli(['usage', '--account', id, '--json'], env)).stdout.trim().split('\n').at(-1)!);
    expect(report.past).toEqual([
      { cycle_start: first.start.toISOString(), cycle_end: first.end.toISOString(), status: 'closed', plan: 'enterprise', calls: 3, included: 2, overage_calls: 1, overage_usd: null },
    ]);
    expect(report.current).toMatchObject({ status: 'open', calls: 1, included: 10, overage_calls: 0 });
  });

  it('a closed cycle is billed by the included calls in force when its calls were last counted, also when they changed between flushes', async () => {
    const { id, api_key, first } = await enterpriseInFirstCycle(2);
    for (const used of ['1', '2']) expect((await lookup(api_key)).used).toBe(used);
    // Within the same flush interval (none runs here), the contract moves to 5 calls, and one more is counted.
    expect((await limits(['--account', id, '--quota', '5'])).code).toBe(0);
    expect(await lookup(api_key)).toMatchObject({ quota: '5', used: '3' });
    now = new Date(first.end.getTime() + 5_000);
    expect(await lookup(api_key)).toMatchObject({ quota: '5', used: '1' });
    const report = JSON.parse((await runCli(['usage', '--account', id, '--json'], env)).stdout.trim().split('\n').at(-1)!);
    expect(report.past).toEqual([
      { cycle_start: first.start.toISOString(), cycle_end: first.end.toISOString(), status: 'closed', plan: 'enterprise', calls: 3, included: 5, overage_calls: 0, overage_usd: null },
    ]);
  });

  it('a closed cycle whose included calls went back to the plan before its last counts is billed as unlimited', async () => {
    const { id, api_key, first } = await enterpriseInFirstCycle(2);
    for (const used of ['1', '2', '3']) expect((await lookup(api_key)).used).toBe(used);
    // `reputation usage` flushes: these three calls are stored under the quota of 2.
    expect((await runCli(['usage', '--account', id, '--json'], env)).code).toBe(0);
    expect((await limits(['--account', id, '--quota', 'default'])).code).toBe(0);
    expect(await lookup(api_key)).toMatchObject({ status: 404, quota: null });
    now = new Date(first.end.getTime() + 5_000);
    const report = JSON.parse((await runCli(['usage', '--account', id, '--json'], env)).stdout.trim().split('\n').at(-1)!);
    expect(report.past).toEqual([
      { cycle_start: first.start.toISOString(), cycle_end: first.end.toISOString(), status: 'closed', plan: 'enterprise', calls: 4, included: null, overage_calls: 0, overage_usd: null },
    ]);
  });

  it('migration 023 gives the counts made before it the override they were billed by until then', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      const migrations = listMigrations();
      await applyMigrations(conn, migrations.filter((m) => m.version < 23));
      await conn.run(`INSERT INTO accounts (id, name, plan, status, created_at, included_calls) VALUES ('acc_a', NULL, 'enterprise', 'active', TIMESTAMP '2026-01-01', 7), ('acc_b', NULL, 'enterprise', 'active', TIMESTAMP '2026-01-01', NULL)`);
      for (const account of ['acc_a', 'acc_b']) {
        await conn.run(`INSERT INTO usage_counts VALUES ('${account}', 'enterprise', TIMESTAMP '2026-01-01', TIMESTAMP '2026-02-01', 5, TIMESTAMP '2026-01-02')`);
      }
      expect(await applyMigrations(conn, migrations)).toContain(23);
      const rows = (await conn.runAndReadAll(`SELECT account_id, included_calls_override FROM usage_counts ORDER BY account_id`)).getRowObjectsJson();
      expect(rows).toEqual([
        { account_id: 'acc_a', included_calls_override: '7' },
        { account_id: 'acc_b', included_calls_override: null },
      ]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  it('an override counts only while the plan has custom_limits', () => {
    const overrides = { ratePerMinute: 5, ratePerSecond: null, includedCalls: 10, cacheTtlSeconds: 5 };
    expect(accountLimits({ plan: 'enterprise', overrides })).toEqual({ ratePerMinute: 5, ratePerSecond: 100, includedCalls: 10, cacheTtlSeconds: 5 });
    expect(accountLimits({ plan: 'growth', overrides })).toEqual({ ratePerMinute: 600, ratePerSecond: 20, includedCalls: 500_000, cacheTtlSeconds: 60 });
  });
});

// `reputation status`: the service at a glance, through a running server's admin endpoint and from
// the database without one; what needs attention is said in words with the command to run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { openStore } from '../pipeline/store/store.ts';
import { tempDataDir } from './helpers/temp.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { newSession, sdnTinyCsv, submitSandbox, verifiedLogin } from './helpers/identity.ts';

describe('reputation status', () => {
  const dataDir = tempDataDir('status');
  let server: RunningServer | null = null;
  const status = async (extra: Record<string, string> = {}) => {
    const run = await runCli(['status', '--json'], cliEnv(dataDir, extra));
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
  });
  afterAll(() => server?.close());

  it('a new service: no run, no list, no names, each with what to do', async () => {
    const s = await status();
    expect(s).toMatchObject({
      server_running: true,
      scoring: { last_run_id: null, stale: null },
      ingest: [],
      sanctions: { list_checked_at: null, names_loaded_at: null, max_age_hours: 48 },
      identity: { operators: 0, flagged_waiting: 0, active_tokens: 0 },
      jobs: { running: 0, failed_24h: 0, recent_failures: [] },
    });
    // --check: exit 1 while something needs attention (exit 0 otherwise is the default).
    expect((await runCli(['status', '--check'], cliEnv(dataDir))).code).toBe(1);
    expect(s.attention).toEqual([
      expect.stringMatching(/^no scoring run yet: .*`reputation score`$/),
      expect.stringMatching(/^no sanctions list loaded: .*refresh-sanctions-list`$/),
      expect.stringMatching(/^no SDN names loaded: every verification is flagged/),
    ]);
  });

  it('with a list, a review waiting and a failed job: the figures, and the attention items that remain', async () => {
    await server!.close();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv }), silentLogger);
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    const key = (await createAccount(server.store, { plan: 'pro', name: 'Status Shop' }, server.keys)).api_key;
    await verifiedLogin(server.url, key);
    const flagged = await newSession(server.url, key);
    await submitSandbox(flagged.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
    // A scoring run for an address that is none fails at once.
    expect((await runCli(['jobs', 'run', 'score', '--data', '{"address": "0x12"}'], cliEnv(dataDir))).code).not.toBe(0);

    const s = await status();
    expect(s).toMatchObject({
      server_running: true,
      sanctions: { listed_addresses: 26, listed_names: 30, listed_births: 4, list_age_hours: 0 },
      identity: { operators: 2, flagged_waiting: 1, active_tokens: 1 },
      jobs: { failed_24h: 1, recent_failures: [{ job_name: 'score', error: expect.stringContaining('0x12') }] },
    });
    expect(s.attention).toEqual([
      expect.stringMatching(/^no scoring run yet/),
      expect.stringMatching(/^1 verification session waits for a review \(the oldest since .*\): `reputation operators flagged`/),
      expect.stringMatching(/^1 job run failed in the last 24 h \(the newest: score at .*0x12.*\): `reputation jobs status`$/),
    ]);

    // For a person: attention first, then a line per part.
    const text = await runCli(['status'], cliEnv(dataDir));
    expect(text.stdout).toMatch(/^Needs attention:\n {2}- no scoring run yet/);
    expect(text.stdout).toMatch(/\nserver +running/);
    expect(text.stdout).toMatch(/\nsanctions +26 addresses, confirmed current at /);
    expect(text.stdout).toMatch(/\nsdn names +30 names, 4 dates of birth/);
    expect(text.stdout).toMatch(/\nidentity +2 operators \(verified or flagged\), 1 active operator tokens, 1 waiting for a review/);
  });

  it('without a server it reads the database itself; a list older than SANCTIONS_LIST_MAX_AGE_HOURS is said to fail signer checks', async () => {
    await server!.close();
    server = null;
    expect((await status({ SANCTIONS_LIST_MAX_AGE_HOURS: '1' })).attention.some((a: string) => a.startsWith('the sanctions list'))).toBe(false);
    // The list as a refresh three hours ago would have left it.
    const store = await openStore({ dataDir });
    try {
      await store.write(async (tx) => {
        await tx.run('UPDATE sanctions_list_loads SET loaded_at = loaded_at - INTERVAL 3 HOUR');
        await tx.run('UPDATE sanctions_list_checks SET checked_at = checked_at - INTERVAL 3 HOUR');
      });
    } finally {
      await store.close();
    }
    const s = await status({ SANCTIONS_LIST_MAX_AGE_HOURS: '1' });
    expect(s.server_running).toBe(false);
    expect(s.identity.flagged_waiting).toBe(1);
    expect(s.sanctions.list_age_hours).toBeCloseTo(3, 0);
    expect(s.attention).toContainEqual(expect.stringMatching(/^the sanctions list was last confirmed 3\.0 h ago, over SANCTIONS_LIST_MAX_AGE_HOURS \(1 h\): assess denies signer checks/));
  });
});

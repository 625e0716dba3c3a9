// The CLI's commands as a user runs them, beyond test/cli.test.ts: option bounds as usage errors,
// documented defaults in the help, --config, the jobs commands without a server, the text of
// usage and limits, and errors that read the same with and without a server.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliEnv, runCli, spawnCli, startServe, stopServe, type ServeProcess } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { heldRpcServer } from './helpers/held-rpc.ts';

const jsonLines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('usage errors of options', () => {
  const env = cliEnv(tempDataDir('cli-options'));

  it.each([
    // devnet --days: the simulation needs a week at least.
    [['devnet', '--days', '6'], /option '--days <count>' argument '6' is invalid\. expected a whole number, at least 7$/],
    [['worker', '--concurrency', '0'], /expected a whole number, at least 1$/],
    [['jobs', 'schedule', 'score', '--every', '0'], /expected a whole number of seconds, at least 1$/],
    // --data must be a JSON object, not an array.
    [['jobs', 'run', 'score', '--data', '[1]'], /option '--data <json>' argument '\[1\]' is invalid\. expected a JSON object/],
    [['jobs', 'status', '--limit', '0'], /expected a whole number from 1 to 500$/],
    // Past the most the server lists: a usage error too, not the operation's refusal (exit 1).
    [['jobs', 'status', '--limit', '501'], /option '--limit <n>' argument '501' is invalid\. expected a whole number from 1 to 500$/],
    [['accounts', 'allowlist', '--key-id', 'key_x', '--account', 'acc_x'], /^reputation: give exactly one of --key-id and --account$/],
    [['accounts', 'allowlist', '--account', 'acc_x', '--set', ','], /give at least one address or network \(use --clear to remove the allowlist\)$/],
    // commander's "(Did you mean serve?)" second line joins the first: one line only.
    [['serv'], /^reputation: unknown command 'serv' \(Did you mean serve\?\)$/],
  ])('%j exits 2 with one line', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(message);
  });

  // The smallest allowed value is accepted (a bound is inclusive): --limit 1.
  it('accepts the bound itself', async () => {
    const result = await runCli(['jobs', 'status', '--limit', '1', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
  });

  // The help shows the documented defaults: devnet 24 agents, 200 payments, 90 days; jobs status 20 runs; worker 4 at once.
  it('help shows the documented defaults', async () => {
    const [devnet, status, worker] = await Promise.all([runCli(['devnet', '--help'], env), runCli(['jobs', 'status', '--help'], env), runCli(['worker', '--help'], env)]);
    for (const r of [devnet, status, worker]) expect(r.code).toBe(0);
    const flat = (s: string) => s.replace(/\s+/g, ' ');
    expect(flat(devnet.stdout)).toMatch(/--agents <count> .*\(default: 24\)/);
    expect(flat(devnet.stdout)).toMatch(/--payments <count> .*\(default: 200\)/);
    expect(flat(devnet.stdout)).toMatch(/--days <count> .*\(default: 90\)/);
    expect(flat(devnet.stdout)).toContain('--no-payments');
    expect(flat(status.stdout)).toMatch(/--limit <n> how many recent runs, at most 500 \(default: 20\)/);
    expect(flat(worker.stdout)).toMatch(/--concurrency <n> jobs processed at once \(default: 4\)/);
  });

  // --config FILE is read like REPUTATION_CONFIG: an unknown key in it stops the command with one line, exit 1.
  it('--config names the file and refuses an unknown key in it', async () => {
    const file = path.join(tempDataDir('cli-config'), 'config.json');
    writeFileSync(file, JSON.stringify({ nosuch: 1 }));
    const result = await runCli(['--config', file, 'jobs', 'list'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^reputation: config file ${file.replaceAll('/', '\\/')}: unknown setting nosuch \\(known: port, `));
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  // DEVNET_PORT taken (a demo already running): one line naming the port and the setting, exit 1.
  it('devnet on a port in use names it and DEVNET_PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const result = await runCli(['devnet', '--agents', '1', '--payments', '1'], cliEnv(tempDataDir('cli-devnet-port'), { DEVNET_PORT: String(port) }));
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`reputation: port ${port} on 127.0.0.1 is already in use: stop the other devnet or demo, or set DEVNET_PORT\n`);
    } finally {
      taken.close();
    }
  });
});

describe('jobs commands without a server', () => {
  const env = cliEnv(tempDataDir('cli-jobs'));

  // schedule creates, --json lists one object per line, --remove (even with --every) deletes.
  it('schedules, lists as JSON and removes', async () => {
    const created = await runCli(['jobs', 'schedule', 'nightly', '--job', 'export', '--every', '3600'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^schedule\s+job\s+data\s+every_seconds\s+removed\n[- ]+\nnightly\s+export\s+\{\}\s+3600\s+false\n\(1 row\)\n$/);

    const listed = await runCli(['jobs', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(jsonLines(listed.stdout)).toContainEqual({ schedule: 'nightly', job: 'export', data: {}, every_seconds: 3600, runner: 'none (no server)', last_state: null, last_at: null });

    expect((await runCli(['jobs', 'schedule', 'weekly', '--job', 'export', '--every', '604800'], env)).code).toBe(0);
    const [removed, removedToo] = [
      await runCli(['jobs', 'schedule', 'nightly', '--remove'], env),
      await runCli(['jobs', 'schedule', 'weekly', '--every', '60', '--remove'], env),
    ];
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/\nnightly\s+export\s+\{\}\s+true\n/);
    expect(removedToo.code, removedToo.stderr).toBe(0);
    expect(removedToo.stdout).toMatch(/\nweekly\s+export\s+\{\}\s+true\n/);
    const left = jsonLines((await runCli(['jobs', 'list', '--json'], env)).stdout).map((s) => s.schedule);
    expect(left).not.toContain('nightly');
    expect(left).not.toContain('weekly');
  });

  // jobs status --json: one JSON object per line, newest first, with the run's state and result.
  it('status --json lists runs as JSON lines', async () => {
    expect((await runCli(['jobs', 'run', 'score'], env)).code).toBe(0);
    expect((await runCli(['jobs', 'run', 'score'], env)).code).toBe(0);
    const status = await runCli(['jobs', 'status', '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    const [newest, first] = jsonLines(status.stdout);
    expect(first).toMatchObject({ job_name: 'score', state: 'completed', trigger: 'manual', error: null, progress: null });
    expect(first!.result).toMatchObject({ kind: 'full', addressCount: 0 });
    // Newest first: the second run found the first and had nothing new to read.
    expect(newest!.result).toMatchObject({ kind: 'incremental', runId: 2 });
  });
});

describe('usage and limits of an enterprise account, and errors through a server', () => {
  const dataDir = tempDataDir('cli-enterprise');
  const env = cliEnv(dataDir);
  let serve: ServeProcess | undefined;
  afterAll(async () => {
    if (serve) await stopServe(serve);
  });

  // Unlimited included calls and overage "by contract" are printed in words; the cache TTL in seconds.
  it('prints unlimited, by contract and the cache TTL with its unit', async () => {
    const { id } = jsonLines((await runCli(['accounts', 'create', '--plan', 'enterprise', '--json'], env)).stdout).at(-1) as { id: string };
    const usage = await runCli(['usage', '--account', id], env);
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toMatch(/: 0 calls used of unlimited; overage 0 calls, by contract so far\n$/);
    const limits = await runCli(['accounts', 'limits', '--account', id], env);
    expect(limits.code, limits.stderr).toBe(0);
    expect(limits.stdout).toMatch(/--cache-ttl\s+60 s\s+\(plan\)\n/);
    expect(limits.stdout).toMatch(/--rate-per-minute\s+6000\/min\s+\(plan\)\n/);
  });

  // README: the output is the same whether or not a server runs; a refused operation reads alike both ways (exit 1).
  it('a refused operation prints the same line with and without a server', async () => {
    const offline = await runCli(['usage', '--account', 'acc_nope'], env);
    serve = await startServe(dataDir, env);
    const online = await runCli(['usage', '--account', 'acc_nope'], env);
    expect(offline).toMatchObject({ code: 1, stdout: '', stderr: 'reputation: no account acc_nope\n' });
    expect(online).toEqual(offline);
  });

  // README: with a server, `jobs run --no-wait` prints the run id at once (state queued); a followed job that fails exits 1 with its error.
  it('jobs run through a server: --no-wait answers queued, a followed job prints its result, a failed one exits 1 with its error', async () => {
    serve ??= await startServe(dataDir, env);
    const queued = await runCli(['jobs', 'run', 'score', '--no-wait'], env);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^run_id\s+state\s+deduplicated\n[- ]+\njob_\S+\s+queued\s+(true|false)\n/);
    // Followed to its end, the run's result (a JSON value in `jobs status`) is printed as a table.
    const followed = await runCli(['jobs', 'run', 'score'], env);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(/^runId\s+kind\s+.*\n[- ]+\n\d+\s+(full|incremental)\s/);
    const failed = await runCli(['jobs', 'run', 'ingest', '--data', '{"chain":"nowhere"}'], env);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^reputation: job job_\S+ failed: chain nowhere is not configured; configured: none\n$/);
  });
});

describe('a job asked for again while it runs', () => {
  it('the second command says it follows the running job, a third that waits for it says it is queued, and all end with its outcome', { timeout: 60_000 }, async () => {
    const cleanups: (() => Promise<unknown>)[] = [];
    const { url, held, release } = await heldRpcServer(cleanups);
    const dataDir = tempDataDir('cli-duplicate-job');
    const env = cliEnv(dataDir, { RPC_URL_DEVNET: url, INGEST_INTERVAL_SECONDS: '3600' });
    const serve = await startServe(dataDir, env);
    try {
      const waitFor = async (what: string, seen: () => boolean) => {
        for (let waited = 0; !seen() && waited < 20_000; waited += 20) await sleep(20);
        expect(seen(), what).toBe(true);
      };
      const first = spawnCli(['ingest', '--chain', 'devnet'], env);
      await waitFor('the job waiting on the node', () => held.length > 0);
      const second = spawnCli(['ingest', '--chain', 'devnet'], env);
      await waitFor('the notice', () => second.output().stderr.includes('already queued or running'));
      expect(second.output().code).toBeNull();
      // Another ingest of the chain waits for the first, and says so.
      const third = spawnCli(['ingest', '--chain', 'devnet', '--source', 'token'], env);
      await waitFor('the queued notice', () => third.output().stderr.includes(' is queued: '));
      expect(third.output().stderr).toMatch(/^ingest job job_\S+ is queued: it waits for a free slot or for work another job is doing\n$/);
      release();
      const [one, two] = await Promise.all([first.done, second.done]);
      const thirdDone = await third.done;
      expect(thirdDone.code).toBe(1);
      // Said once, not at every look.
      expect(thirdDone.stderr.split(' is queued: ').length).toBe(2);
      const runId = /\(([^)]+)\); following it\n/.exec(two.stderr)?.[1];
      expect(two.stderr).toMatch(/^the same ingest job is already queued or running \(job_\S+\); following it\n/);
      // Both followed the one run to its failure.
      for (const result of [one, two]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`reputation: job ${runId} failed: `);
      }
      expect(one.stderr).not.toContain('already queued or running');
    } finally {
      release();
      await stopServe(serve);
      for (const cleanup of cleanups) await cleanup();
    }
  });
});

// Jobs without Redis: the in-process runner, run records, deduplication and schedules, and which
// scoring runs the score job exports.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { loadConfig } from '../pipeline/config.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { runOperationIn, type OperationContext } from '../api/admin/operations.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('in-process job runner', () => {
  const dataDir = tempDataDir('jobs-inproc');
  let devnet: Devnet;
  let server: RunningServer;
  let ctx: OperationContext;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    await runThinScenario(devnet);
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RPC_URL_DEVNET: devnet.rpcUrl, INGEST_INTERVAL_SECONDS: '3600' });
    server = await startServer(config, silentLogger);
    ctx = { store: server.store, config, log: silentLogger, runs: server.runs, jobs: server.jobs };
  });
  afterAll(async () => {
    await server?.close();
    await devnet?.close();
  });

  it('runs a job, records it, and a duplicate request while it runs is a no-op', async () => {
    const first = await server.jobs.run('ingest', { chain: 'devnet' });
    const second = await server.jobs.run('ingest', { chain: 'devnet' });
    expect(first.deduplicated).toBe(false);
    expect(second).toMatchObject({ deduplicated: true, runId: first.runId });
    await first.done;
    const [run] = (await runOperationIn(ctx, 'jobs.status', { runId: first.runId })) as Record<string, unknown>[];
    expect(run).toMatchObject({ run_id: first.runId, job_name: 'ingest', state: 'completed', trigger: 'manual', error: null });
    expect((run!.result as unknown[])[0]).toMatchObject({ chain: 'devnet', source: 'token', logs: 41 });
    // Finished: the same request starts a new run.
    const third = await server.jobs.run('ingest', { chain: 'devnet' });
    expect(third.deduplicated).toBe(false);
    expect(third.runId).not.toBe(first.runId);
    await third.done;
  });

  it('records a failed run with its error', async () => {
    const run = await server.jobs.run('ingest', { chain: 'nowhere' });
    await expect(run.done).rejects.toThrow(/chain nowhere is not configured/);
    const [row] = (await runOperationIn(ctx, 'jobs.status', { runId: run.runId })) as Record<string, unknown>[];
    // The error is the message alone, as the job threw it.
    expect(row).toMatchObject({ state: 'failed', error: 'chain nowhere is not configured; configured: devnet' });
  });

  it('a failed job nobody waits for is recorded, not an unhandled rejection', async () => {
    // Vitest fails the run on an unhandled rejection: this is what kept the owner alive.
    const run = await server.jobs.run('ingest', { chain: 'elsewhere' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [row] = (await runOperationIn(ctx, 'jobs.status', { runId: run.runId })) as Record<string, unknown>[];
    expect(row).toMatchObject({ state: 'failed' });
  });

  it('refuses bad job input before running anything', async () => {
    await expect(runOperationIn(ctx, 'jobs.run', { name: 'ingest', data: { chain: 7 } })).rejects.toThrow(/ingest: chain: /);
    await expect(runOperationIn(ctx, 'jobs.run', { name: 'frobnicate' })).rejects.toThrow(/job must be one of/);
    await expect(runOperationIn(ctx, 'jobs.status', { runId: 'job_missing' })).rejects.toThrow(/no job run job_missing/);
  });

  it('lists default schedules, and changes, adds and removes them', async () => {
    const list = async () => (await runOperationIn(ctx, 'jobs.list', {})) as { schedule: string; job: string; data: unknown; every_seconds: number; runner: string }[];
    expect((await list()).map((s) => s.schedule)).toEqual(['fetch-metadata-devnet', 'ingest-devnet', 'prune-assessments', 'prune-credentials', 'prune-sessions', 'score', 'score-full']);
    expect((await list()).find((s) => s.schedule === 'ingest-devnet')).toMatchObject({ every_seconds: 3600, runner: 'in-process' });
    expect((await list()).find((s) => s.schedule === 'score-full')).toMatchObject({ every_seconds: 86_400, job: 'score', data: { full: true } });
    // README, "Jobs": fetch-metadata-<chain> every 300 s, score every SCORE_INTERVAL_SECONDS (60 by default).
    expect((await list()).find((s) => s.schedule === 'fetch-metadata-devnet')).toMatchObject({ every_seconds: 300, job: 'fetch-metadata', data: { chain: 'devnet' } });
    expect((await list()).find((s) => s.schedule === 'score')).toMatchObject({ every_seconds: 60, job: 'score', data: {} });

    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'ingest-devnet', everySeconds: 30 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly-export', name: 'export', everySeconds: 86_400 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly-export', everySeconds: null });
    const after = await list();
    expect(after.map((s) => s.schedule)).toEqual(['fetch-metadata-devnet', 'ingest-devnet', 'prune-assessments', 'prune-credentials', 'prune-sessions', 'score', 'score-full']);
    expect(after.find((s) => s.schedule === 'ingest-devnet')!.every_seconds).toBe(30);
    await expect(runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'brand-new', everySeconds: 5 })).rejects.toThrow(/give --job/);
    // `jobs schedule brand-new --remove`: there is nothing to remove, and nothing to create.
    await expect(runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'brand-new', everySeconds: null })).rejects.toThrow(/^schedule brand-new does not exist$/);
  });

  it('deduplicates the same input in any key order, and not a different input', async () => {
    const first = await server.jobs.run('ingest', { chain: 'nowhere', source: 'token' });
    const reordered = await server.jobs.run('ingest', { source: 'token', chain: 'nowhere' });
    const other = await server.jobs.run('ingest', { chain: 'elsewhere', source: 'token' });
    expect(reordered).toMatchObject({ deduplicated: true, runId: first.runId });
    expect(other.deduplicated).toBe(false);
    expect(other.runId).not.toBe(first.runId);
    await Promise.allSettled([first.done, other.done]);
  });

  it('runs two jobs at once, and a third when one of them has ended', async () => {
    const started = await Promise.all(['one', 'two', 'three'].map((c) => server.jobs.run('ingest', { chain: `nowhere-${c}` })));
    await Promise.allSettled(started.map((s) => s.done));
    const [order] = await server.store.read(
      `WITH r AS (SELECT run_id, min(started_at) AS s, max(finished_at) AS f FROM job_runs WHERE run_id IN ($1, $2, $3) GROUP BY run_id)
       SELECT (SELECT s FROM r WHERE run_id = $2) < (SELECT f FROM r WHERE run_id = $1) AS second_ran_with_first,
              (SELECT s FROM r WHERE run_id = $3) >= least((SELECT f FROM r WHERE run_id = $1), (SELECT f FROM r WHERE run_id = $2)) AS third_waited`,
      started.map((s) => s.runId),
    );
    expect(order).toEqual({ second_ran_with_first: true, third_waited: true });
  });

  it('refuses an unknown input key and a limit of 0', async () => {
    await expect(runOperationIn(ctx, 'jobs.run', { name: 'ingest', data: { chian: 'devnet' } })).rejects.toThrow(/^ingest: input: .*chian/);
    await expect(runOperationIn(ctx, 'jobs.run', { name: 'fetch-metadata', data: { limit: 0 } })).rejects.toThrow(/^fetch-metadata: limit: /);
  });

  it('changing only the interval of a schedule keeps its job and data', async () => {
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'fetch-metadata-devnet', everySeconds: 600 });
    const listed = (await runOperationIn(ctx, 'jobs.list', {})) as { schedule: string }[];
    expect(listed.find((s) => s.schedule === 'fetch-metadata-devnet')).toMatchObject({ job: 'fetch-metadata', data: { chain: 'devnet' }, every_seconds: 600 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'fetch-metadata-devnet', everySeconds: 300 });
  });

  it('refuses to remove a schedule that does not exist, even with --job', async () => {
    await expect(runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'no-such', name: 'export', everySeconds: null })).rejects.toThrow(/^schedule no-such does not exist$/);
  });

  it('status shows the live progress of a running run, and none once it has ended', async () => {
    const runId = await server.runs.start('ingest', { chain: 'devnet' }, 'manual', 'job_with_progress');
    server.runs.progress(runId, { done: 3, total: 10, unit: 'blocks' });
    const [running] = (await runOperationIn(ctx, 'jobs.status', { runId })) as Record<string, unknown>[];
    expect(running).toMatchObject({ state: 'running', progress: { done: 3, total: 10, unit: 'blocks' } });
    await server.runs.finish(runId, { result: null });
    const [ended] = (await runOperationIn(ctx, 'jobs.status', { runId })) as Record<string, unknown>[];
    expect(ended).toMatchObject({ state: 'completed', progress: null });
  });

  it('a changed interval replaces the old timer', async () => {
    // Another schedule every second is the clock: while it runs three times, a left-over
    // one-second timer of score would start score again.
    const started = async (job: string) =>
      (await server.store.read(`SELECT count(DISTINCT run_id)::INTEGER AS n FROM job_runs WHERE job_name = $1 AND trigger = 'schedule'`, [job]))[0]!.n as number;
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'score', everySeconds: 1 });
    const scoreBefore = await started('score');
    for (let i = 0; i < 100 && (await started('score')) < scoreBefore + 1; i++) await new Promise((r) => setTimeout(r, 100));
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'score', everySeconds: 3600 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'clock', name: 'export', everySeconds: 1 });
    const scoreAfter = await started('score');
    const clockBefore = await started('export');
    for (let i = 0; i < 100 && (await started('export')) < clockBefore + 3; i++) await new Promise((r) => setTimeout(r, 100));
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'clock', everySeconds: null });
    expect(await started('export')).toBeGreaterThanOrEqual(clockBefore + 3);
    expect(await started('score')).toBeLessThanOrEqual(scoreAfter + 1);
  });

  it('a schedule that ran before is due one interval after its last run, also after a reload', async () => {
    // A job and input no other test schedules: the token source of the devnet.
    const data = { chain: 'devnet', source: 'token' };
    const scheduledRuns = async () =>
      (await server.store.read(`SELECT count(DISTINCT run_id)::INTEGER AS n FROM job_runs WHERE job_data = $1::JSON AND trigger = 'schedule'`, [JSON.stringify(data)]))[0]!.n as number;
    // Its last scheduled run two hours ago: an hourly schedule is overdue, so it runs at once,
    // where a fresh timer would wait an hour (a daily run would be put off by each restart).
    await server.store.write((tx) =>
      tx.run(`INSERT INTO job_runs VALUES ('job_earlier', 'ingest', $1, 'completed', 'schedule', utc_now() - INTERVAL 2 HOUR, utc_now() - INTERVAL 2 HOUR, NULL, NULL)`, [JSON.stringify(data)]),
    );
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'hourly-token', name: 'ingest', data, everySeconds: 3600 });
    for (let i = 0; i < 100 && (await scheduledRuns()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await scheduledRuns()).toBe(2);
    // It just ran: another reload (any schedule change) leaves it due in an hour, not at once.
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'score', everySeconds: 3600 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await scheduledRuns()).toBe(2);
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'hourly-token', everySeconds: null });
  });

  it("jobs list shows a schedule's last run also when that run's input was written in another key order", async () => {
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'token-reordered', name: 'ingest', data: { chain: 'devnet', source: 'token' }, everySeconds: 3600 });
    // The newest run of that input, asked for as --data '{"source":"token","chain":"devnet"}'.
    await server.store.write((tx) =>
      tx.run(`INSERT INTO job_runs VALUES ('job_reordered', 'ingest', '{"source":"token","chain":"devnet"}', 'failed', 'manual', utc_now() + INTERVAL 1 MINUTE, utc_now() + INTERVAL 1 MINUTE, NULL, 'x')`),
    );
    const listed = ((await runOperationIn(ctx, 'jobs.list', {})) as { schedule: string; last_state: string | null }[]).find((s) => s.schedule === 'token-reordered');
    expect(listed?.last_state).toBe('failed');
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'token-reordered', everySeconds: null });
  });

  it('a schedule fires the job on its interval', async () => {
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'score', everySeconds: 1 });
    const scoreRuns = async () =>
      (await server.store.read(`SELECT count(DISTINCT run_id)::INTEGER AS n FROM job_runs WHERE job_name = 'score' AND trigger = 'schedule' AND state = 'completed'`))[0]!.n as number;
    const before = await scoreRuns();
    for (let i = 0; i < 50 && (await scoreRuns()) < before + 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await scoreRuns()).toBeGreaterThanOrEqual(before + 2);
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'score', everySeconds: 3600 });
  });
});

describe('default schedules', () => {
  it('refresh the sanctions list every 3600 s when SANCTIONS_LIST_SOURCE is set, and not otherwise', () => {
    const sanctions = (env: Record<string, string>) => defaultSchedules(loadConfig({ DATA_DIR: '/unused', ...env })).filter((s) => s.jobName === 'refresh-sanctions-list');
    expect(sanctions({ SANCTIONS_LIST_SOURCE: 'https://sanctions.invalid/sdn_advanced.xml' })).toEqual([
      { scheduleId: 'refresh-sanctions-list', jobName: 'refresh-sanctions-list', jobData: {}, everySeconds: 3600 },
    ]);
    expect(sanctions({})).toEqual([]);
  });

  it('take their intervals from the settings, and leave out score-full when it is 0', () => {
    const schedules = defaultSchedules(loadConfig({ DATA_DIR: '/unused', RPC_URL_DEVNET: 'http://127.0.0.1:1', INGEST_INTERVAL_SECONDS: '7', SCORE_INTERVAL_SECONDS: '11', SCORE_FULL_INTERVAL_SECONDS: '0' }));
    const every = Object.fromEntries(schedules.map((s) => [s.scheduleId, s.everySeconds]));
    expect(every).toMatchObject({ 'ingest-devnet': 7, 'fetch-metadata-devnet': 300, score: 11 });
    expect(every).not.toHaveProperty('score-full');
  });
  it('give a chain without an RPC URL a fetch-metadata schedule and no ingest schedule', () => {
    const file = path.join(tempDataDir('jobs-no-rpc'), 'config.json');
    writeFileSync(file, JSON.stringify({ chains: { base: {} } }));
    const ids = defaultSchedules(loadConfig({ DATA_DIR: '/unused' }, file)).map((s) => s.scheduleId);
    expect(ids).toContain('fetch-metadata-base');
    expect(ids).not.toContain('ingest-base');
  });
});

describe('runs cut off by a stop', () => {
  it('are recorded as failed when the owner starts again', async () => {
    const dataDir = tempDataDir('jobs-interrupted');
    const first = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    // A run the owner started but never finished (as after kill -9), and one that finished.
    await first.runs.start('score', {}, 'manual', 'job_cut_off');
    const done = await first.runs.start('export', {}, 'manual', 'job_done');
    await first.runs.finish(done, { result: null });
    await first.close();

    const second = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    try {
      const ctx = { store: second.store, config: loadConfig({ DATA_DIR: dataDir }), log: silentLogger, runs: second.runs };
      const [cut] = (await runOperationIn(ctx, 'jobs.status', { runId: 'job_cut_off' })) as Record<string, unknown>[];
      expect(cut).toMatchObject({ state: 'failed', error: 'interrupted: the owner stopped while it ran' });
      const [ok] = (await runOperationIn(ctx, 'jobs.status', { runId: 'job_done' })) as Record<string, unknown>[];
      expect(ok).toMatchObject({ state: 'completed' });
    } finally {
      await second.close();
    }
  });
  it('a stop lets a running job finish, and refuses new ones', async () => {
    const server = await startServer(loadConfig({ DATA_DIR: tempDataDir('jobs-stop'), PORT: '0' }), silentLogger);
    const run = await server.jobs.run('score', {});
    await server.close();
    await expect(run.done).resolves.toMatchObject({ kind: 'full' });
    await expect(server.jobs.run('score', {})).rejects.toThrow(/^the job runner is stopping$/);
  });
});

describe('the score job exports its runs', () => {
  // docs/analytics.md: every full or incremental run that changed something is exported under
  // DATA_DIR/exports/run=N/ with `latest` naming it; an on-demand run for one address is not,
  // nor is a run that recomputed nothing.
  const dataDir = tempDataDir('jobs-export');
  const exportsDir = path.join(dataDir, 'exports');
  let server: RunningServer;
  const score = async (data: { full?: boolean; address?: string } = {}) =>
    (await (await server.jobs.run('score', data)).done) as { runId: number; kind: string; rescoredCount: number; exportDirectory?: string };
  const latest = () => readFileSync(path.join(exportsDir, 'latest'), 'utf8');
  const importTransfers = async (file: string) => {
    const report = await importFile({ store: server.store, log: silentLogger }, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report.rowsLoaded).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SCORE_INTERVAL_SECONDS: '86400' }), silentLogger);
  });
  afterAll(() => server?.close());

  it('a full run, then an incremental one, are each exported and latest follows', async () => {
    await importTransfers(path.join(repoRoot, 'test/fixtures/import/transfers.csv'));
    const first = await score();
    expect(first).toMatchObject({ runId: 1, kind: 'full', exportDirectory: path.join(exportsDir, 'run=1') });
    expect(latest()).toBe('run=1\n');

    // A new payment of a new payer: the next run rescores its two addresses only.
    const more = path.join(dataDir, 'more-transfers.csv');
    writeFileSync(more, [
      'chain,block_number,block_time,tx_hash,log_index,token,from_address,to_address,value,tx_sender,authorized',
      `base,38200000,2025-11-06T10:00:00Z,0x${'7e'.repeat(32)},1,0x833589fcd6edb6e08f4c7c32d4f71b54bda02913,0x${'7a'.repeat(20)},0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c,3000000,0x${'7a'.repeat(20)},true`,
    ].join('\n'));
    await importTransfers(more);
    const second = await score();
    expect(second).toMatchObject({ runId: 2, kind: 'incremental', rescoredCount: 2, exportDirectory: path.join(exportsDir, 'run=2') });
    expect(latest()).toBe('run=2\n');
    expect(readdirSync(exportsDir).sort()).toEqual(['latest', 'run=1', 'run=2']);
  });

  it('a run that recomputed nothing is not exported', async () => {
    const idle = await score();
    expect(idle).toMatchObject({ runId: 3, kind: 'incremental', rescoredCount: 0 });
    expect(idle).not.toHaveProperty('exportDirectory');
    expect(existsSync(path.join(exportsDir, 'run=3'))).toBe(false);
    expect(latest()).toBe('run=2\n');
  });

  it('an on-demand run for one address is not exported', async () => {
    const onDemand = await score({ address: '0x00000000000000000000000000000000000c0ffe' });
    expect(onDemand).toMatchObject({ runId: 4, kind: 'addresses', rescoredCount: 1 });
    expect(onDemand).not.toHaveProperty('exportDirectory');
    expect(readdirSync(exportsDir).sort()).toEqual(['latest', 'run=1', 'run=2']);
    expect(latest()).toBe('run=2\n');
  });
});

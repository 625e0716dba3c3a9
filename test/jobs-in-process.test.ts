// Jobs without Redis: the in-process runner, run records, deduplication and schedules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { runOperationIn, type OperationContext } from '../api/admin/operations.ts';
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
    expect(JSON.parse(String(run!.result))[0]).toMatchObject({ chain: 'devnet', source: 'token', logs: 41 });
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
    expect(row).toMatchObject({ state: 'failed', error: expect.stringMatching(/chain nowhere is not configured/) });
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
    expect((await list()).map((s) => s.schedule)).toEqual(['fetch-metadata-devnet', 'ingest-devnet', 'score', 'score-full']);
    expect((await list()).find((s) => s.schedule === 'ingest-devnet')).toMatchObject({ every_seconds: 3600, runner: 'in-process' });
    expect((await list()).find((s) => s.schedule === 'score-full')).toMatchObject({ every_seconds: 86_400, job: 'score', data: { full: true } });

    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'ingest-devnet', everySeconds: 30 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly-export', name: 'export', everySeconds: 86_400 });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly-export', everySeconds: null });
    const after = await list();
    expect(after.map((s) => s.schedule)).toEqual(['fetch-metadata-devnet', 'ingest-devnet', 'score', 'score-full']);
    expect(after.find((s) => s.schedule === 'ingest-devnet')!.every_seconds).toBe(30);
    await expect(runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'brand-new', everySeconds: 5 })).rejects.toThrow(/give --job/);
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
});

// Jobs with Redis (BullMQ): a worker in a separate process reads the chain while the owner
// serves; producers fail fast when Redis is down; a Redis restart loses nothing and doubles
// nothing.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { runThinScenario, type ThinScenario } from '../devnet/scenario.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { privateRedis, sharedRedisUrl, uniquePrefix } from './helpers/redis.ts';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { queueNames } from '../jobs/bullmq/connection.ts';
import { startIoWorker } from '../jobs/bullmq/io-worker.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { freePort } from './helpers/free-port.ts';
import { heldRpcServer } from './helpers/held-rpc.ts';
import { settlesWithin } from './helpers/settles-within.ts';

function startWorker(env: Record<string, string>): { child: ChildProcess; ready: Promise<void>; output: () => string } {
  const child = spawn(process.execPath, ['bin/reputation.js', 'worker'], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      output += d;
      if (output.includes('worker ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
  return { child, ready, output: () => output };
}

async function stopWorker(worker: { child: ChildProcess }): Promise<number | null> {
  if (worker.child.exitCode !== null) return worker.child.exitCode;
  const exited = new Promise<number | null>((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  return exited;
}

async function chainCounts(server: RunningServer) {
  const [row] = await server.store.read(
    `SELECT (SELECT count(*) FROM token_transfers)::INTEGER AS transfers,
            (SELECT count(*) FROM authorizations_used)::INTEGER AS authorizations,
            (SELECT count(*) FROM transaction_senders)::INTEGER AS senders`,
  );
  return row;
}

function expectedCounts(devnet: Devnet, scenario: ThinScenario) {
  const mints = devnet.accounts.length - 1;
  return { transfers: scenario.payments.length + scenario.plainTransfers.length + mints, authorizations: scenario.payments.length, senders: scenario.payments.length };
}

describe('BullMQ runner', () => {
  let devnet: Devnet;
  let scenario: ThinScenario;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => devnet?.close());

  async function chain() {
    if (!devnet) {
      devnet = await startDevnet({ port: 0 });
      scenario = await runThinScenario(devnet);
    }
    return { devnet, scenario };
  }

  it('a worker in a separate process ingests while the owner serves the API', { timeout: 90_000 }, async () => {
    const { devnet, scenario } = await chain();
    const dataDir = tempDataDir('bullmq-worker');
    const env = { DATA_DIR: dataDir, REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: uniquePrefix('worker'), RPC_URL_DEVNET: devnet.rpcUrl, INGEST_INTERVAL_SECONDS: '3600' };
    // Small ranges make many io jobs, so the work really crosses processes.
    const configFile = path.join(dataDir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ chains: { devnet: { maxBlockRange: 3 } } }));
    const server = await startServer(loadConfig({ ...env, PORT: '0' }, configFile), silentLogger, { ioWorkersInOwner: 0 });
    cleanups.push(() => server.close());
    const worker = startWorker({ ...env, REPUTATION_CONFIG: configFile });
    cleanups.push(() => stopWorker(worker));
    await worker.ready;

    const key = (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key;
    const run = await server.jobs.run('ingest', { chain: 'devnet' });
    // The API answers while the ingest runs.
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    await run.done.catch((err: Error) => {
      throw new Error(`${err.message}\nworker said: ${worker.output()}`);
    });
    // The scheduled ingest may have read the blocks first (the two run one after the other):
    // together they read them in many small ranges, each through the worker.
    const runs = await server.store.read(`SELECT result::VARCHAR AS result FROM job_runs WHERE job_name = 'ingest' AND state = 'completed'`);
    const chunks = runs.flatMap((r) => JSON.parse(String(r.result)) as { chunks: number }[]).reduce((n, r) => n + r.chunks, 0);
    expect(chunks).toBeGreaterThan(5);
    expect(await chainCounts(server)).toEqual(expectedCounts(devnet, scenario));

    await (await server.jobs.run('score', {})).done;
    const res = await fetch(`${server.url}/v1/reputation/${scenario.roles.heavyMerchant}`, { headers: { 'X-API-Key': key } });
    expect(((await res.json()) as { score: { grade: string } }).score.grade).toBe('D');
    expect(await stopWorker(worker)).toBe(0);
  });

  // README, "Jobs": block ranges are read by the io queue's workers, two of them inside the owner.
  it('the owner reads the block ranges itself when no worker runs', { timeout: 90_000 }, async () => {
    const { devnet, scenario } = await chain();
    const server = await startServer(
      loadConfig({ DATA_DIR: tempDataDir('bullmq-owner-io'), PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: uniquePrefix('owner-io'), RPC_URL_DEVNET: devnet.rpcUrl, INGEST_INTERVAL_SECONDS: '3600' }),
      silentLogger,
    );
    cleanups.push(() => server.close());
    await (await server.jobs.run('ingest', { chain: 'devnet' })).done;
    expect(await chainCounts(server)).toEqual(expectedCounts(devnet, scenario));
  });

  it('a duplicate request while the job is queued or running is a no-op', { timeout: 60_000 }, async () => {
    const { devnet } = await chain();
    const dataDir = tempDataDir('bullmq-dedup');
    const server = await startServer(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: uniquePrefix('dedup'), RPC_URL_DEVNET: devnet.rpcUrl, INGEST_INTERVAL_SECONDS: '3600' }),
      silentLogger,
    );
    cleanups.push(() => server.close());
    const [first, second] = await Promise.all([server.jobs.run('export', {}), server.jobs.run('export', {})]);
    expect([first.deduplicated, second.deduplicated].sort()).toEqual([false, true]);
    expect(second.runId).toBe(first.runId);
    // The duplicate settles with the first job's result, once it has finished.
    expect(await second.done).toEqual(await first.done);
  });

  it('retries a failed job with backoff, recording the attempts that will be retried as retrying; bad input fails once', { timeout: 60_000 }, async () => {
    // An RPC endpoint that answers every request with HTTP 404: each ingest attempt fails at once.
    const rpc = await heldRpcServer(cleanups);
    rpc.release();
    const server = await startServer(
      loadConfig({ DATA_DIR: tempDataDir('bullmq-retry'), PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: uniquePrefix('retry'), RPC_URL_DEVNET: rpc.url, INGEST_INTERVAL_SECONDS: '3600' }),
      silentLogger,
    );
    cleanups.push(() => server.close());
    const states = async (runId: string) =>
      (await server.store.read(`SELECT state, error FROM job_runs WHERE run_id = $1 ORDER BY coalesce(finished_at, started_at), state = 'running' DESC`, [runId])).map((r) => String(r.state));

    const ingest = await server.jobs.run('ingest', { chain: 'devnet' });
    await expect(ingest.done).rejects.toThrow(/failed after 1 attempt/);
    // Three attempts (exponential backoff), the first two recorded as retrying.
    expect(await states(ingest.runId)).toEqual(['running', 'retrying', 'running', 'retrying', 'running', 'failed']);
    // The row that ends an attempt carries that attempt's start.
    const starts = (await server.store.read(`SELECT started_at::VARCHAR AS s FROM job_runs WHERE run_id = $1 ORDER BY coalesce(finished_at, started_at), state = 'running' DESC`, [ingest.runId])).map((r) => String(r.s));
    expect(new Set(starts).size).toBe(3);
    expect([starts[1], starts[3], starts[5]]).toEqual([starts[0], starts[2], starts[4]]);

    // Bad input (no sanctions source configured) is not retried: one attempt, recorded as failed.
    const sanctions = await server.jobs.run('refresh-sanctions-list', {});
    await expect(sanctions.done).rejects.toThrow(/no sanctions list source/);
    await sleep(2_500);
    expect(await states(sanctions.runId)).toEqual(['running', 'failed']);
  });

  it('the owner runs two jobs at once by default, and a third only when one of them lets go', { timeout: 60_000 }, async () => {
    // The scheduled ingest of each chain, which starts with the server, waits on its first
    // request to an RPC endpoint that does not answer, holding one of the owner's slots.
    const rpc = await heldRpcServer(cleanups);
    const server = await startServer(
      loadConfig({
        DATA_DIR: tempDataDir('bullmq-concurrency'), PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: uniquePrefix('concurrency'),
        RPC_URL_DEVNET: `${rpc.url}/devnet`, RPC_URL_BASE: `${rpc.url}/base`, INGEST_INTERVAL_SECONDS: '3600',
      }),
      silentLogger,
    );
    cleanups.push(() => server.close());
    const seen = () => new Set(rpc.held.map((h) => h.path));
    for (let i = 0; i < 400 && seen().size < 2; i++) await sleep(50);
    expect(seen()).toEqual(new Set(['/devnet', '/base']));

    // Both slots are held: a third job waits in the queue (behind the other scheduled jobs, which
    // take a moment each), and only the two ingests are running.
    const exported = await server.jobs.run('export', {});
    await sleep(1_500);
    const states = async () => (await server.store.read(`SELECT run_id, job_name, state FROM job_run_states`)).map((r) => ({ ...r }));
    expect((await states()).filter((r) => r.state === 'running')).toEqual([
      expect.objectContaining({ job_name: 'ingest' }),
      expect.objectContaining({ job_name: 'ingest' }),
    ]);
    expect((await states()).filter((r) => r.run_id === exported.runId)).toEqual([]);

    // Once the ingests' requests are answered (they fail, to be retried after a backoff), the export runs.
    rpc.release();
    await exported.done;
    expect((await states()).find((r) => r.run_id === exported.runId)).toMatchObject({ state: 'completed' });
  });

  it('jobs waiting for a scheduled ingest that outlasts its interval give their slots back, and its ticks add one waiting job', { timeout: 60_000 }, async () => {
    const rpc = await heldRpcServer(cleanups);
    const prefix = uniquePrefix('held-chain');
    const config = loadConfig({ DATA_DIR: tempDataDir('bullmq-held-chain'), PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: prefix, RPC_URL_DEVNET: rpc.url, INGEST_INTERVAL_SECONDS: '1' });
    const server = await startServer(config, silentLogger);
    cleanups.push(async () => (rpc.release(), await server.close()));
    const queue = new Queue(queueNames.owner, { connection: { url: sharedRedisUrl }, prefix });
    cleanups.push(() => queue.close());
    for (let i = 0; i < 400 && rpc.held.length === 0; i++) await sleep(50);
    expect(rpc.held.length).toBeGreaterThan(0);

    // The schedule fires every second while its first run holds the chain. A scheduler's job
    // carries no deduplication id, so each tick hands its wait to one deduplicated job.
    const handedOver = async () =>
      (await queue.getJobs(['completed'])).filter((j) => j.name === 'ingest').map((j) => (j.returnvalue as { waitingAs?: string }).waitingAs);
    for (let i = 0; i < 200 && (await handedOver()).length < 3; i++) await sleep(50);
    const waitingAs = new Set(await handedOver());
    expect(waitingAs.size).toBe(1);
    const [waitingJob] = [...waitingAs];

    // A request for the chain is not folded into that scheduled job, and waits too.
    const request = await server.jobs.run('ingest', { chain: 'devnet' });
    expect([request.deduplicated, request.runId === waitingJob]).toEqual([false, false]);
    // Neither holds a slot: the owner's two are free for other work.
    const [exported, rescored] = [await server.jobs.run('export', {}), await server.jobs.run('score', { address: '0x' + '1'.repeat(40) })];
    expect(await settlesWithin(20_000, Promise.all([exported.done, rescored.done]))).toBe('done');
    // `jobs status` shows both queued; the scheduler's next tick is not a run yet.
    const ctx = { store: server.store, config, log: silentLogger, runs: server.runs, jobs: server.jobs };
    // (Once a second each is taken from the queue for a moment to look again: asked a few times.)
    const queued = async () =>
      ((await runOperationIn(ctx, 'jobs.status', {})) as Record<string, unknown>[]).filter((r) => r.state === 'queued').map((r) => [r.run_id, r.trigger]);
    const expected = [[request.runId, 'manual'], [waitingJob, 'schedule']];
    for (let i = 0; i < 20 && JSON.stringify(await queued()) !== JSON.stringify(expected); i++) await sleep(100);
    expect(await queued()).toEqual(expected);
    expect(await runOperationIn(ctx, 'jobs.status', { runId: request.runId })).toEqual([expect.objectContaining({ state: 'queued', job_data: { chain: 'devnet' } })]);

    // Mirroring the schedules again keeps it while its schedule is there; removed, its waiting job goes with it.
    // (Taken from the queue to look again at that moment, it is dropped at the next mirroring.)
    await server.jobs.reloadSchedules();
    expect(await Job.fromId(queue, waitingJob!)).toBeDefined();
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'ingest-devnet', everySeconds: null });
    for (let i = 0; i < 20 && (await Job.fromId(queue, waitingJob!)); i++) await sleep(100).then(() => server.jobs.reloadSchedules());
    expect(await Job.fromId(queue, waitingJob!)).toBeUndefined();
    // The node answers again (HTTP 404): the request, which waited its turn, runs and fails after its attempts.
    rpc.release();
    await expect(request.done).rejects.toThrow(/eth_blockNumber failed/);
    const states = (await server.store.read(`SELECT state FROM job_runs WHERE run_id = $1 ORDER BY coalesce(finished_at, started_at), state = 'running' DESC`, [request.runId])).map((r) => r.state);
    expect(states).toEqual(['running', 'retrying', 'running', 'retrying', 'running', 'failed']);
  });

  it('an io worker without the chain of a range fails it on the first attempt, naming the setting', { timeout: 60_000 }, async () => {
    const prefix = uniquePrefix('io-no-chain');
    const config = loadConfig({ DATA_DIR: tempDataDir('io-no-chain'), REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: prefix });
    const worker = startIoWorker(config, silentLogger);
    cleanups.push(() => worker.close());
    await worker.waitUntilReady();
    const queue = new Queue(queueNames.io, { connection: { url: sharedRedisUrl }, prefix });
    cleanups.push(() => queue.close());
    // As the owner's fetcher adds a range: five attempts with backoff.
    const job = await queue.add('fetch-chunk', { chain: 'ghost', source: 'token', from: '1', to: '2' }, { attempts: 5, backoff: { type: 'exponential', delay: 500 } });
    let state = await job.getState();
    for (let waited = 0; state !== 'failed' && waited < 20_000; waited += 50) {
      await sleep(50);
      state = await job.getState();
    }
    const failed = await Job.fromId(queue, job.id!);
    expect([state, failed!.attemptsMade, failed!.failedReason]).toEqual(['failed', 1, 'this worker has no chain ghost configured (set RPC_URL_GHOST)']);
  });

  it('mirrors the schedules into BullMQ job schedulers with their interval, data and retries, and drops a removed one', { timeout: 60_000 }, async () => {
    const prefix = uniquePrefix('schedulers');
    const config = loadConfig({ DATA_DIR: tempDataDir('bullmq-schedulers'), PORT: '0', REDIS_URL: sharedRedisUrl, QUEUE_PREFIX: prefix, SCORE_INTERVAL_SECONDS: '3600' });
    const server = await startServer(config, silentLogger);
    cleanups.push(() => server.close());
    const ctx = { store: server.store, config, log: silentLogger, runs: server.runs, jobs: server.jobs };
    const connection = new Redis(sharedRedisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(queueNames.owner, { connection, prefix });
    cleanups.push(async () => (await queue.close(), connection.disconnect()));
    const schedulers = async () => Object.fromEntries((await queue.getJobSchedulers()).map((s) => [s.key, s]));

    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly', name: 'export', everySeconds: 86_400 });
    expect((await schedulers()).nightly).toMatchObject({ name: 'export', every: 86_400_000, template: { data: { data: {}, trigger: 'schedule' }, opts: { attempts: 3 } } });
    expect((await schedulers())['score-full']).toMatchObject({ name: 'score', template: { data: { data: { full: true }, trigger: 'schedule' } } });
    await runOperationIn(ctx, 'jobs.schedule', { scheduleId: 'nightly', everySeconds: null });
    expect(Object.keys(await schedulers())).not.toContain('nightly');
  });

  it('answers 503 at once for work it cannot enqueue while Redis is down', { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir('bullmq-down');
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', REDIS_URL: deadRedis, QUEUE_PREFIX: uniquePrefix('down') }), silentLogger);
    cleanups.push(() => server.close());
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const { readFileSync } = await import('node:fs');
    const token = readFileSync(path.join(dataDir, 'admin.token'), 'utf8');
    const started = Date.now();
    const res = await fetch(`${server.adminUrl}/admin/operations/jobs.run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'score', wait: false }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^cannot enqueue score: the job queue \(Redis\) is unavailable: [^:]+$/) });
    expect(Date.now() - started).toBeLessThan(5_000);

    // The recorded runs are still shown: only the queued ones cannot be listed.
    const runId = await server.runs.start('export', {}, 'manual');
    await server.runs.finish(runId, { result: null });
    for (const body of [{}, { runId }]) {
      const status = await fetch(`${server.adminUrl}/admin/operations/jobs.status`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(status.status).toBe(200);
      expect(JSON.stringify(await status.json())).toContain(`"run_id":"${runId}"`);
    }
  });

  it('Redis killed mid-run and started again: every job finishes and no row is written twice', { timeout: 120_000 }, async () => {
    const { devnet, scenario } = await chain();
    const redis = await privateRedis();
    cleanups.push(() => redis.kill());
    const dataDir = tempDataDir('bullmq-restart');
    const configFile = path.join(dataDir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ chains: { devnet: { maxBlockRange: 2 } } }));
    const env = { DATA_DIR: dataDir, REDIS_URL: redis.url, QUEUE_PREFIX: 'restart', RPC_URL_DEVNET: devnet.rpcUrl, INGEST_INTERVAL_SECONDS: '1' };
    const server = await startServer(loadConfig({ ...env, PORT: '0' }, configFile), silentLogger, { ioWorkersInOwner: 0 });
    cleanups.push(() => server.close());
    const worker = startWorker({ ...env, REPUTATION_CONFIG: configFile });
    cleanups.push(() => stopWorker(worker));
    await worker.ready;

    // Let the scheduled ingest get going (its first range written), then take Redis away with
    // everything in it. On a busy machine the first range can take several seconds.
    for (let i = 0; i < 1_500; i++) {
      const [row] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM ingest_cursors`);
      if (Number(row!.n) > 0) break;
      await sleep(20);
    }
    await redis.kill();
    await sleep(1_500);
    await redis.start();

    const expected = expectedCounts(devnet, scenario);
    for (let i = 0; i < 300 && JSON.stringify(await chainCounts(server)) !== JSON.stringify(expected); i++) await sleep(200);
    if (JSON.stringify(await chainCounts(server)) !== JSON.stringify(expected)) {
      console.log('WORKER OUTPUT', worker.output().slice(-4000));
      console.log('RUNS', JSON.stringify(await server.store.read(`SELECT job_name, state, error, started_at::VARCHAR AS s FROM job_runs ORDER BY started_at DESC LIMIT 12`)));
      console.log('CURSORS', JSON.stringify(await server.store.read(`SELECT * FROM ingest_cursors`)));
    }
    expect(await chainCounts(server)).toEqual(expected);

    // Every run that started also finished (completed, or failed and was run again).
    for (let i = 0; i < 150; i++) {
      const [open] = await server.store.read(
        `SELECT count(*)::INTEGER AS n FROM (SELECT run_id FROM job_runs GROUP BY run_id HAVING bool_and(state = 'running'))`,
      );
      if (Number(open!.n) === 0) break;
      await sleep(200);
    }
    const [open] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM (SELECT run_id FROM job_runs GROUP BY run_id HAVING bool_and(state = 'running'))`);
    expect(open).toEqual({ n: 0 });
    const [done] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM job_runs WHERE job_name = 'ingest' AND state = 'completed'`);
    expect(Number(done!.n)).toBeGreaterThan(0);
  });
});

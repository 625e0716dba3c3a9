// Work another job is doing (jobs/work-locks.ts): the in-process runner takes a job's locks before
// one of its two slots, so the runs that wait for a long backfill hold no slot and other jobs go
// on; a request is not folded into a scheduled run. (BullMQ: test/jobs-bullmq.test.ts.)
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { workLocks } from '../jobs/work-locks.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { tempDataDir } from './helpers/temp.ts';
import { heldRpcServer } from './helpers/held-rpc.ts';
import { settlesWithin } from './helpers/settles-within.ts';

describe('the in-process runner and work another job holds', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serverOnHeldRpc(label: string, ingestEverySeconds: string) {
    const rpc = await heldRpcServer(cleanups);
    const config = loadConfig({ DATA_DIR: tempDataDir(label), PORT: '0', RPC_URL_DEVNET: rpc.url, INGEST_INTERVAL_SECONDS: ingestEverySeconds });
    const server = await startServer(config, silentLogger);
    cleanups.push(async () => (rpc.release(), await server.close()));
    const status = async (runId?: string) =>
      ((await runOperationIn({ store: server.store, config, log: silentLogger, runs: server.runs, jobs: server.jobs }, 'jobs.status', { runId })) as Record<string, unknown>[]).map(
        ({ run_id, job_data, state, trigger }) => ({ run_id, job_data, state, trigger }),
      );
    return { rpc, server, status };
  }

  async function untilHeld(rpc: { held: unknown[] }) {
    for (let i = 0; i < 400 && rpc.held.length === 0; i++) await sleep(50);
    expect(rpc.held.length).toBeGreaterThan(0);
  }

  const running = async (server: RunningServer) =>
    (await server.store.read(`SELECT run_id FROM job_run_states WHERE state = 'running'`)).map((r) => String(r.run_id));

  it('a backfill of every chain, and the scheduled ingests and requests waiting for it, leave both slots to other jobs', { timeout: 60_000 }, async () => {
    const { rpc, server, status } = await serverOnHeldRpc('held-work-slots', '1');
    const backfill = await server.jobs.run('ingest', {});
    await untilHeld(rpc);
    const chain = await server.jobs.run('ingest', { chain: 'devnet' });
    const tokenOnly = await server.jobs.run('ingest', { chain: 'devnet', source: 'token' });
    // The chain's schedule fires every second meanwhile; none of these runs has started.
    await sleep(2_500);
    expect(await running(server)).toEqual([backfill.runId]);
    // `jobs status` shows them queued, newest first, above the runs that started. (The tick may
    // have come before the requests.)
    const rows = await status();
    expect(rows.at(-1)).toEqual({ run_id: backfill.runId, job_data: {}, state: 'running', trigger: 'manual' });
    expect(rows.filter((r) => r.trigger === 'manual' && r.state === 'queued')).toEqual([
      { run_id: tokenOnly.runId, job_data: { chain: 'devnet', source: 'token' }, state: 'queued', trigger: 'manual' },
      { run_id: chain.runId, job_data: { chain: 'devnet' }, state: 'queued', trigger: 'manual' },
    ]);
    expect(rows.filter((r) => r.trigger === 'schedule')).toEqual([{ run_id: expect.any(String), job_data: { chain: 'devnet' }, state: 'queued', trigger: 'schedule' }]);
    expect(await status(chain.runId)).toEqual([{ run_id: chain.runId, job_data: { chain: 'devnet' }, state: 'queued', trigger: 'manual' }]);

    // Two jobs that need none of that work run at once beside the backfill: both slots are free.
    const releaseMetadata = holdKeys(server, ['fetch-metadata:devnet']);
    const exported = await server.jobs.run('export', {});
    const fetched = await server.jobs.run('fetch-metadata', { chain: 'devnet' });
    expect(await settlesWithin(1_000, fetched.done)).toBe('waiting');
    await releaseMetadata();
    expect(await settlesWithin(20_000, Promise.all([exported.done, fetched.done]))).toBe('done');

    // The endpoint now answers HTTP 404: the backfill fails, then each run that waited for it.
    rpc.release();
    for (const run of [backfill, chain, tokenOnly]) await expect(run.done).rejects.toThrow(/^eth_blockNumber failed/);
  });

  it('a request is not folded into a scheduled run of the same job, nor a tick into a request', { timeout: 60_000 }, async () => {
    const { rpc, server } = await serverOnHeldRpc('held-work-request', '3600');
    const backfill = await server.jobs.run('ingest', {});
    await untilHeld(rpc);
    const tick = await server.jobs.run('ingest', { chain: 'devnet' }, 'schedule');
    const request = await server.jobs.run('ingest', { chain: 'devnet' });
    expect(request.deduplicated).toBe(false);
    expect(request.runId).not.toBe(tick.runId);
    // A second tick is folded into the first, as a second request is into the first.
    expect(await server.jobs.run('ingest', { chain: 'devnet' }, 'schedule')).toMatchObject({ deduplicated: true, runId: tick.runId });
    expect(await server.jobs.run('ingest', { chain: 'devnet' })).toMatchObject({ deduplicated: true, runId: request.runId });

    rpc.release();
    for (const run of [backfill, tick, request]) await expect(run.done).rejects.toThrow(/^eth_blockNumber failed/);
  });

  it('a job waits for the locks it takes, and only for those', { timeout: 60_000 }, async () => {
    // Two chains whose RPC endpoints nobody calls: neither metadata nor scoring reads the chain.
    const server = await startServer(
      loadConfig({ DATA_DIR: tempDataDir('held-work-locks'), PORT: '0', RPC_URL_DEVNET: 'http://127.0.0.1:9', RPC_URL_BASE: 'http://127.0.0.1:9', INGEST_INTERVAL_SECONDS: '3600' }),
      silentLogger,
    );
    cleanups.push(() => server.close());
    const release = holdKeys(server, ['fetch-metadata:devnet', 'score']);
    cleanups.push(release);
    const waiting = [
      await server.jobs.run('fetch-metadata', { chain: 'devnet' }),
      await server.jobs.run('score', {}),
      await server.jobs.run('score', { full: true }),
    ];
    // The rescoring of one address waits too: here, the database's first run, it is a full one.
    waiting.push(await server.jobs.run('score', { address: '0x' + '2'.repeat(40) }));
    await expect(server.jobs.run('fetch-metadata', { chain: 'base' }).then((r) => r.done)).resolves.toMatchObject({ selected: 0 });
    // A fetch of every chain waits for devnet's, and holds every chain's and '*' while it waits:
    // base's, and a chain only the database knows, now wait for it.
    waiting.push(await server.jobs.run('fetch-metadata', {}));
    waiting.push(await server.jobs.run('fetch-metadata', { chain: 'base' }));
    waiting.push(await server.jobs.run('fetch-metadata', { chain: 'imported' }));
    for (const run of waiting) expect(await settlesWithin(300, run.done)).toBe('waiting');
    await release();
    await Promise.all(waiting.map((r) => r.done));
  });
});

/** Holds the keys, as a running job would, until the returned function is called. */
function holdKeys(server: RunningServer, keys: string[]): () => Promise<void> {
  let release!: () => void;
  const done = workLocks(server.store).hold(keys, () => new Promise<void>((resolve) => (release = resolve)));
  return async () => {
    release();
    await done;
  };
}


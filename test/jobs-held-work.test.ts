// Work another job is doing (jobs/handlers.ts, jobs/work-locks.ts): a scheduled run skips it, so a
// long backfill cannot take both of the runner's slots; a run asked for by hand waits its turn and
// is never folded into a scheduled run that may skip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, type Config } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runHandler, type JobDeps } from '../jobs/handlers.ts';
import { workLocks } from '../jobs/work-locks.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { tempDataDir } from './helpers/temp.ts';
import { heldRpcServer } from './helpers/held-rpc.ts';

/** Holds the keys, as a running job would, until the returned function is called. */
function holdKeys(store: Store, keys: string[]): () => Promise<void> {
  let release!: () => void;
  const done = workLocks(store).hold(keys, () => new Promise<void>((resolve) => (release = resolve)));
  return async () => {
    release();
    await done;
  };
}

describe('a scheduled run and work another job holds', () => {
  let store: Store;
  let config: Config;
  let deps: JobDeps;
  const scheduled = () => ({ ...deps, scheduled: true });
  beforeAll(async () => {
    // Two chains with RPC URLs nobody calls: neither metadata nor scoring reads the chain.
    config = loadConfig({ DATA_DIR: tempDataDir('held-work'), RPC_URL_DEVNET: 'http://127.0.0.1:9', RPC_URL_BASE: 'http://127.0.0.1:9' });
    store = await openStore({ dataDir: config.dataDir });
    deps = { store, config, log: silentLogger };
  });
  afterAll(() => store?.close());

  it("fetch-metadata: skips only a chain another job is fetching; a fetch of every chain waits for, and blocks, each chain's", async () => {
    expect(Object.keys(config.chains).sort()).toEqual(['base', 'devnet']);
    const release = holdKeys(store, ['fetch-metadata:devnet']);
    await expect(runHandler(scheduled(), 'fetch-metadata', { chain: 'devnet' })).resolves.toEqual({
      skipped: 'another job is fetching the registration files of devnet',
    });
    await expect(runHandler(scheduled(), 'fetch-metadata', {})).resolves.toEqual({
      skipped: 'another job is fetching the registration files of every chain',
    });
    // The other chain's schedule, which fires at the same moment, is not held up.
    await expect(runHandler(scheduled(), 'fetch-metadata', { chain: 'base' })).resolves.toMatchObject({ selected: 0 });
    // Asked for by hand, the same work waits and then runs.
    const manual = runHandler(deps, 'fetch-metadata', { chain: 'devnet' });
    await release();
    await expect(manual).resolves.toMatchObject({ selected: 0 });

    // A fetch of every chain holds each configured chain's lock.
    const releaseAll = holdKeys(store, ['fetch-metadata:*']);
    for (const chain of ['devnet', 'base']) {
      expect(workLocks(store).busy([`fetch-metadata:${chain}`])).toBe(false);
    }
    const everyChain = runHandler(deps, 'fetch-metadata', {});
    for (const chain of ['devnet', 'base']) {
      await expect(runHandler(scheduled(), 'fetch-metadata', { chain })).resolves.toEqual({
        skipped: `another job is fetching the registration files of ${chain}`,
      });
    }
    // A chain only the database knows (imported) is fetched by every-chain runs: it shares '*'.
    await expect(runHandler(scheduled(), 'fetch-metadata', { chain: 'imported' })).resolves.toEqual({
      skipped: 'another job is fetching the registration files of imported',
    });
    await releaseAll();
    await expect(everyChain).resolves.toMatchObject({ selected: 0 });
    expect(workLocks(store).busy(['fetch-metadata:*', 'fetch-metadata:devnet', 'fetch-metadata:base'])).toBe(false);
  });

  it('score: a scheduled incremental run skips while another run scores; a full run and a run asked for by hand wait', async () => {
    const release = holdKeys(store, ['score']);
    await expect(runHandler(scheduled(), 'score', {})).resolves.toEqual({ skipped: 'another job is scoring' });
    const full = runHandler(scheduled(), 'score', { full: true });
    const manual = runHandler(deps, 'score', {});
    await release();
    await expect(full).resolves.toMatchObject({ kind: 'full' });
    await expect(manual).resolves.toMatchObject({ kind: 'incremental' });
    // Nobody scoring: a scheduled run runs.
    await expect(runHandler(scheduled(), 'score', {})).resolves.toMatchObject({ kind: 'incremental' });
  });

  it('ingest: a scheduled run reports each chain another job is ingesting as skipped, by chain', async () => {
    const release = holdKeys(store, ['ingest:devnet', 'ingest:base']);
    await expect(runHandler(scheduled(), 'ingest', {})).resolves.toEqual([
      { chain: 'devnet', skipped: 'another job is ingesting devnet' },
      { chain: 'base', skipped: 'another job is ingesting base' },
    ]);
    await release();
  });
});

describe('the in-process runner and a long ingest', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serverOnHeldRpc(label: string, ingestEverySeconds: string) {
    const rpc = await heldRpcServer(cleanups);
    const server = await startServer(
      loadConfig({ DATA_DIR: tempDataDir(label), PORT: '0', RPC_URL_DEVNET: rpc.url, INGEST_INTERVAL_SECONDS: ingestEverySeconds }),
      silentLogger,
    );
    cleanups.push(async () => (rpc.release(), await server.close()));
    return { rpc, server };
  }

  async function untilHeld(rpc: { held: unknown[] }) {
    for (let i = 0; i < 400 && rpc.held.length === 0; i++) await sleep(50);
    expect(rpc.held.length).toBeGreaterThan(0);
  }

  const stateOf = async (server: RunningServer, runId: string) =>
    (await server.store.read(`SELECT state, result FROM job_run_states WHERE run_id = $1`, [runId])).map((r) => ({ ...r }))[0];

  it('a backfill of every chain and the scheduled ingests that fire meanwhile leave a slot for other jobs', { timeout: 60_000 }, async () => {
    const { rpc, server } = await serverOnHeldRpc('held-work-starve', '1');
    const backfill = await server.jobs.run('ingest', {});
    backfill.done.catch(() => undefined);
    await untilHeld(rpc);

    // The per-chain schedule fires every second while the backfill holds the chain.
    let skipped: Record<string, unknown>[] = [];
    for (let i = 0; i < 200 && skipped.length === 0; i++) {
      await sleep(50);
      skipped = (await server.store.read(`SELECT result FROM job_run_states WHERE trigger = 'schedule' AND job_name = 'ingest' AND state = 'completed'`)).map((r) => ({ ...r }));
    }
    expect(JSON.parse(String(skipped[0]?.result))).toEqual([{ chain: 'devnet', skipped: 'another job is ingesting devnet' }]);

    const exported = await server.jobs.run('export', {});
    const outcome = await Promise.race([exported.done.then(() => 'exported'), sleep(20_000).then(() => 'still waiting after 20 s')]);
    expect(outcome).toBe('exported');
    expect(await stateOf(server, backfill.runId)).toMatchObject({ state: 'running' });
  });

  it('a request is not folded into a queued scheduled run of the same job, and runs instead of skipping', { timeout: 60_000 }, async () => {
    const { rpc, server } = await serverOnHeldRpc('held-work-request', '3600');
    // Both slots: the backfill holds the chain, and a request for one of its sources waits for it.
    const backfill = await server.jobs.run('ingest', {});
    await untilHeld(rpc);
    const tokenOnly = await server.jobs.run('ingest', { chain: 'devnet', source: 'token' });
    // A tick of the chain's schedule now waits for a slot; by the time it gets one, it may skip.
    const tick = await server.jobs.run('ingest', { chain: 'devnet' }, 'schedule');
    const request = await server.jobs.run('ingest', { chain: 'devnet' });
    expect(request.deduplicated).toBe(false);
    expect(request.runId).not.toBe(tick.runId);
    // A second tick is folded into the first, as a second request is into the first.
    expect(await server.jobs.run('ingest', { chain: 'devnet' }, 'schedule')).toMatchObject({ deduplicated: true, runId: tick.runId });
    expect(await server.jobs.run('ingest', { chain: 'devnet' })).toMatchObject({ deduplicated: true, runId: request.runId });

    // The endpoint now answers HTTP 404: every run that reads the chain fails, the request too.
    rpc.release();
    for (const run of [backfill, tokenOnly, request]) await expect(run.done).rejects.toThrow(/^eth_blockNumber failed/);
    await tick.done.catch(() => undefined);
    expect(await stateOf(server, request.runId)).toMatchObject({ state: 'failed' });
  });
});

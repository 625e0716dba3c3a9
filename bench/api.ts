// The API under load: autocannon over loopback against a real server in a child process
// (bench/api-child.ts), every phase in the same run on the same machine:
//
//   bare      a bare Koa app (same child process) answering a small JSON: the baseline of the HTTP stack;
//   bare_record  the same app answering one record's JSON bytes: the bytes of a lookup without its work;
//   cached    GET /v1/reputation/{address} with a valid key (auth, rate limit, quota, cached record)
//             over a pool of scored addresses, the cache warmed first: target >= 0.8x bare (answered
//             by the hot path, api/reputation/hot-lookup.ts, which shares the limits with Koa);
//   uncached  the same route for scored addresses not in the cache, each asked once (the miss path:
//             the DuckDB statement, JSON, the cache insert), against that statement in a tight loop
//             inside the server process without HTTP, at the same concurrency: target >= 0.7x;
//   agents    GET /v1/agents (first page, default filters).
//
// Fairness: every phase uses the same autocannon client (one process, `connections` sockets, no
// pipelining) building every request the same way (a path with an address and an X-API-Key taken
// in turn), so the client's own cost is the same for the baseline; the query loop runs
// `connections` loops, so as many statements are in flight as HTTP requests are.
//
// The data set is bench/score-data.ts's (1M addresses by default) scored by one full run, made
// in a child process; at that size wrap the command in `flock /tmp/bench-big.lock`.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { databaseFileName } from '../pipeline/store/store.ts';
import { benchSetting, type ScoreDataSize } from './score-data.ts';
import type { PrepareResult, QueryLoopResult, ServeCommand, ServeReady, ServeSettings, ServeStats } from './api-child.ts';

const child = fileURLToPath(new URL('./api-child.ts', import.meta.url));
const progress = (step: string) => process.stderr.write(`bench api: ${step}\n`);

export interface ApiBenchSettings {
  data: ScoreDataSize;
  /** Scored addresses looked up in the cached phase (all of them cached). */
  pool: number;
  /** Other scored addresses for the uncached phase, each asked at most once: more than it gets through. */
  uncachedPool: number;
  /** Seconds each measured phase runs. */
  seconds: number;
  /** autocannon's sockets (requests in flight). */
  connections: number;
  /** Bench API keys (scale plan) taken in turn, so none reaches its rate limit. */
  keys: number;
  /** A directory to keep the scored data set in and reuse (made when it holds no database); else a temporary one. */
  dataDir?: string;
  /** A directory for the server's V8 CPU profile (node --cpu-prof). */
  cpuProfileDir?: string;
}

/**
 * BENCH_API_ADDRESSES (1,000,000), BENCH_API_TRANSFERS (10,000,000), BENCH_API_AGENTS (20,000),
 * BENCH_API_POOL (100,000), BENCH_API_UNCACHED_POOL (200,000), BENCH_API_SECONDS (10),
 * BENCH_API_CONNECTIONS (10), BENCH_API_KEYS (3,000), BENCH_API_DATA_DIR, BENCH_API_CPU_PROF.
 */
export function apiBenchSettings(env: NodeJS.ProcessEnv = process.env): ApiBenchSettings {
  const size = (name: string, fallback: number) => benchSetting(env, name, fallback);
  return {
    data: { addresses: size('BENCH_API_ADDRESSES', 1_000_000), transfers: size('BENCH_API_TRANSFERS', 10_000_000), agents: size('BENCH_API_AGENTS', 20_000) },
    pool: size('BENCH_API_POOL', 100_000),
    uncachedPool: size('BENCH_API_UNCACHED_POOL', 200_000),
    seconds: size('BENCH_API_SECONDS', 10),
    connections: size('BENCH_API_CONNECTIONS', 10),
    keys: size('BENCH_API_KEYS', 3_000),
    dataDir: env.BENCH_API_DATA_DIR || undefined,
    cpuProfileDir: env.BENCH_API_CPU_PROF || undefined,
  };
}

export async function benchApi(settings: ApiBenchSettings = apiBenchSettings()): Promise<Record<string, number>> {
  const dataDir = settings.dataDir ?? mkdtempSync(path.join(tmpdir(), 'bench-api-'));
  try {
    const prepared = existsSync(path.join(dataDir, databaseFileName)) ? null : await prepare(dataDir, settings.data);
    const server = await startServeChild(dataDir, { pool: settings.pool + settings.uncachedPool, keys: settings.keys, recordCacheSize: settings.pool }, settings.cpuProfileDir);
    try {
      const hot = server.ready.pool.slice(0, settings.pool);
      const coldPool = server.ready.pool.slice(settings.pool);
      if (coldPool.length === 0) throw new Error(`only ${server.ready.pool.length} scored addresses: fewer than BENCH_API_POOL (${settings.pool}) and some for the uncached phase`);
      const load = (url: string, route: (address: string) => string, addresses: string[], options: LoadOptions = {}) =>
        runLoad({ url, route, addresses, keys: server.ready.keys, connections: settings.connections, seconds: settings.seconds, ...options });
      const lookup = (address: string) => `/v1/reputation/${address}`;

      // Every key once, so each account's quota counter is loaded before anything is measured.
      progress('keys');
      await load(server.ready.url, lookup, hot, { amount: settings.keys });
      const stats = () => server.call({ cmd: 'stats' }) as Promise<ServeStats>;
      progress('bare');
      const beforeBare = await stats();
      const bare = await load(server.ready.bareUrl, (address) => `/bare/${address}`, hot);
      const afterBare = await stats();
      const bareRecord = await load(server.ready.bareUrl, (address) => `/bare-record/${address}`, hot);
      const afterBareRecord = await stats();

      progress(`warming the cache with ${settings.pool} lookups`);
      await server.call({ cmd: 'warm', addresses: settings.pool, concurrency: settings.connections });
      progress('cached');
      const warmed = await stats();
      const cached = await load(server.ready.url, lookup, hot);
      const afterCached = await stats();

      progress('uncached');
      const uncached = await load(server.ready.url, lookup, coldPool);
      const afterUncached = await stats();
      if (afterUncached.cache_hits !== afterCached.cache_hits) throw new Error(`the uncached phase went through its ${coldPool.length} addresses: raise BENCH_API_UNCACHED_POOL`);
      const loop = (await server.call({ cmd: 'query-loop', addresses: coldPool.length, concurrency: settings.connections, seconds: settings.seconds })) as QueryLoopResult;
      const queryLoop = { rps: loop.requests / loop.seconds, ...percentiles(loop.latencies_ms) };

      progress('agents');
      const beforeAgents = await stats();
      const agents = await load(server.ready.url, () => '/v1/agents', hot);
      const end = await stats();
      // The server's CPU per answered request: what a phase costs it, whatever else loads the machine.
      const cpuPerRequest = (before: ServeStats, after: ServeStats, r: LoadResult) => round((after.cpu_us - before.cpu_us) / r.requests);

      const round = (x: number, digits = 0) => Number(x.toFixed(digits));
      const phase = (name: string, r: LoadResult, before: ServeStats, after: ServeStats) => ({
        [`${name}_rps`]: round(r.rps),
        [`${name}_p50_ms`]: r.p50,
        [`${name}_p99_ms`]: r.p99,
        [`${name}_server_cpu_us_per_request`]: cpuPerRequest(before, after, r),
      });
      return {
        scored_addresses: server.ready.scored,
        ...(prepared ? { generate_s: round(prepared.generate_ms / 1000, 1), score_s: round(prepared.score_ms / 1000, 1) } : {}),
        pool: settings.pool,
        connections: settings.connections,
        seconds: settings.seconds,
        ...phase('bare', bare, beforeBare, afterBare),
        ...phase('bare_record', bareRecord, afterBare, afterBareRecord),
        ...phase('cached', cached, warmed, afterCached),
        ...phase('uncached', uncached, afterCached, afterUncached),
        query_loop_rps: round(queryLoop.rps),
        query_loop_p50_ms: round(queryLoop.p50, 2),
        query_loop_p99_ms: round(queryLoop.p99, 2),
        ...phase('agents', agents, beforeAgents, end),
        ratio_cached_vs_bare: round(cached.rps / bare.rps, 2),
        ratio_cached_vs_bare_record: round(cached.rps / bareRecord.rps, 2),
        ratio_uncached_vs_query_loop: round(uncached.rps / queryLoop.rps, 2),
        // Slightly over 1: autocannon leaves out the requests still in flight when a phase ends.
        cache_hits_per_request_cached_phase: round((afterCached.cache_hits - warmed.cache_hits) / cached.requests, 3),
        hot_path_answers_per_request_cached_phase: round((afterCached.hot_lookups - warmed.hot_lookups) / cached.requests, 3),
        cache_entries: afterCached.cache_entries,
        server_rss_after_warm_mib: warmed.rss_mib,
        server_rss_after_cached_mib: afterCached.rss_mib,
        server_rss_end_mib: end.rss_mib,
        server_heap_used_end_mib: end.heap_used_mib,
      };
    } finally {
      await server.stop();
    }
  } finally {
    if (!settings.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function prepare(dataDir: string, size: ScoreDataSize): Promise<PrepareResult> {
  const proc = fork(child, ['prepare', dataDir, JSON.stringify(size)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let stdout = '';
  proc.stdout!.on('data', (d: Buffer) => (stdout += d));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  if (code !== 0) throw new Error(`bench/api-child.ts prepare exited with ${code}`);
  return JSON.parse(stdout) as PrepareResult;
}

interface ServeChild {
  ready: ServeReady;
  call(command: ServeCommand): Promise<unknown>;
  stop(): Promise<void>;
}

async function startServeChild(dataDir: string, settings: ServeSettings, cpuProfileDir?: string): Promise<ServeChild> {
  const execArgv = ['--import', 'tsx', ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [])];
  const proc: ChildProcess = fork(child, ['serve', dataDir, JSON.stringify(settings)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<never>((_, reject) => proc.on('exit', (code) => reject(new Error(`bench/api-child.ts serve exited with ${code}`))));
  exited.catch(() => undefined);
  const nextMessage = () => Promise.race([new Promise<unknown>((resolve) => proc.once('message', resolve)), exited]);
  const ready = (await nextMessage()) as ServeReady;
  // One command at a time: each reply is the next message.
  const call = async (command: ServeCommand) => {
    const reply = nextMessage();
    proc.send(command);
    const answer = (await reply) as { ok: boolean; result?: unknown; error?: string };
    if (!answer.ok) throw new Error(`bench server: ${answer.error}`);
    return answer.result;
  };
  let stopped = false;
  return {
    ready,
    call,
    async stop() {
      if (stopped) return;
      stopped = true;
      const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      await call({ cmd: 'stop' }).catch(() => proc.kill());
      await gone;
    },
  };
}

interface LoadOptions {
  /** Stop after this many requests instead of after `seconds`. */
  amount?: number;
}

interface LoadResult {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
}

async function runLoad(options: LoadOptions & {
  url: string;
  route: (address: string) => string;
  addresses: string[];
  keys: string[];
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  let n = 0;
  const { addresses, keys } = options;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds }),
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const i = n++;
          return { ...req, path: options.route(addresses[i % addresses.length]!), headers: { 'x-api-key': keys[i % keys.length]! } };
        },
      },
    ],
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${status}: ${count}`).join(', ');
    // A scale key takes 40 requests/s: faster phases need more keys to stay under it.
    const hint = result.statusCodeStats?.['429'] ? '; 429s: raise BENCH_API_KEYS' : '';
    throw new Error(`${options.url}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx} [${statuses}], errors ${result.errors}, timeouts ${result.timeouts})${hint}`);
  }
  return { rps: result.requests.total / result.duration, requests: result.requests.total, p50: result.latency.p50, p99: result.latency.p99 };
}

function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

// The child processes of `npm run bench -- api` (bench/api.ts), so the server's RSS and CPU are
// its own and autocannon's are not in them:
//
//   node --import tsx bench/api-child.ts prepare <dataDir>   the synthetic data set (bench/score-data.ts)
//        and one full scoring run over it; prints the times and the scored address count as JSON.
//   node --import tsx bench/api-child.ts serve <dataDir>     a bare Koa app and the real server over
//        that directory (IPC: ready, then the commands of `ServeCommand`), until told to stop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { readRecordRow, serveAddress } from '../api/reputation/lookup.ts';
import { generateScoreData, type ScoreDataSize } from './score-data.ts';

export interface PrepareResult {
  generate_ms: number;
  score_ms: number;
  addresses_scored: number;
}

export interface ServeSettings {
  /** Addresses looked up (the first scored ones in a fixed random order). */
  pool: number;
  /** API keys made for the bench, used in turn so no key reaches its plan's rate limit. */
  keys: number;
  recordCacheSize: number;
}

export interface ServeReady {
  url: string;
  bareUrl: string;
  keys: string[];
  pool: string[];
  /** Addresses with a record in the data set. */
  scored: number;
}

export type ServeCommand =
  | { cmd: 'warm'; addresses: number; concurrency: number }
  | { cmd: 'query-loop'; addresses: number; concurrency: number; seconds: number }
  | { cmd: 'stats' }
  | { cmd: 'stop' };

export interface QueryLoopResult {
  requests: number;
  seconds: number;
  latencies_ms: number[];
}

export interface ServeStats {
  rss_mib: number;
  heap_used_mib: number;
  cache_entries: number;
  cache_hits: number;
  cache_misses: number;
  /** Lookups answered by the hot path (api/reputation/hot-lookup.ts) rather than Koa. */
  hot_lookups: number;
  /** CPU time of this process so far (user + system), microseconds. */
  cpu_us: number;
}

// The plan of the bench keys: the complete record (full_reputation), a quota to count, a rate
// limit the key rotation stays under, and no response signing (an enterprise extra).
const benchPlan = 'scale';
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

export async function prepare(dataDir: string, size: ScoreDataSize): Promise<PrepareResult> {
  const store = await openStore({ dataDir });
  try {
    let started = performance.now();
    await generateScoreData(store, size);
    const generateMs = performance.now() - started;
    started = performance.now();
    const run = await runScoring(store, { full: true });
    const scoreMs = performance.now() - started;
    return { generate_ms: Math.round(generateMs), score_ms: Math.round(scoreMs), addresses_scored: run.addressCount };
  } finally {
    await store.close();
  }
}

/** Addresses with records, in an order fixed by their hash (so every run asks the same ones). */
export async function lookupPool(store: Store, size: number): Promise<string[]> {
  const rows = await store.read('SELECT address FROM address_scores ORDER BY hash(address), address LIMIT $1', [size]);
  return rows.map((r) => String(r.address));
}

/** The lookup's own statement (sql/serve/address_record.sql, prepared per connection) as the server runs it, without HTTP. */
export async function queryLoop(store: Store, pool: string[], concurrency: number, seconds: number): Promise<QueryLoopResult> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const address = pool[next++ % pool.length]!;
        const t = performance.now();
        await readRecordRow(store, address);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { requests: latencies.length, seconds: (performance.now() - started) / 1000, latencies_ms: latencies };
}

async function serve(dataDir: string, settings: ServeSettings): Promise<void> {
  const send = (message: unknown) => new Promise<void>((resolve, reject) => process.send!(message, (err: Error | null) => (err ? reject(err) : resolve())));

  // The baselines: a bare Koa app in this same process answering a small JSON, or under
  // /bare-record/ a fixed record's JSON bytes (set once the data is open): the same bytes as a lookup.
  let recordJson: Buffer = Buffer.from('{}');
  const bare = new Koa();
  bare.use((ctx) => {
    if (ctx.path.startsWith('/bare-record/')) {
      ctx.type = 'json';
      ctx.body = recordJson;
    } else ctx.body = { ok: true, service: 'bench' };
  });
  const bareServer = http.createServer(bare.callback());
  await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));

  // No scheduled scoring run during the bench: its work would be measured with the lookups'.
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RECORD_CACHE_SIZE: String(settings.recordCacheSize), SCORE_INTERVAL_SECONDS: '86400' });
  const server = await startServer(config, silentLogger);
  const keys: string[] = [];
  for (let i = 0; i < settings.keys; i++) keys.push((await createAccount(server.store, { plan: benchPlan, name: `bench ${i}` }, server.keys)).api_key);
  const pool = await lookupPool(server.store, settings.pool);
  recordJson = (await serveAddress(server.store, pool[0]!, { full: true, now: new Date() })).json;
  const [count] = await server.store.read('SELECT count(*)::INTEGER AS n FROM address_scores');
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
  await send({ url: server.url, bareUrl, keys, pool, scored: Number(count!.n) } satisfies ServeReady);

  process.on('message', (message: ServeCommand) => {
    const reply = async (): Promise<unknown> => {
      switch (message.cmd) {
        case 'warm': {
          // The first addresses of the pool cached as the route caches them (paid shape, no chain filter).
          let next = 0;
          await Promise.all(
            Array.from({ length: message.concurrency }, async () => {
              while (next < message.addresses) await serveAddress(server.store, pool[next++]!, { full: true, now: new Date() }, server.records);
            }),
          );
          return { warmed: message.addresses };
        }
        case 'query-loop':
          return queryLoop(server.store, pool.slice(-message.addresses), message.concurrency, message.seconds);
        case 'stats': {
          const memory = process.memoryUsage();
          const cpu = process.cpuUsage();
          return {
            rss_mib: mib(memory.rss),
            heap_used_mib: mib(memory.heapUsed),
            cache_entries: server.records.entryCount,
            cache_hits: server.records.hits,
            cache_misses: server.records.misses,
            hot_lookups: server.hotLookups(),
            cpu_us: cpu.user + cpu.system,
          } satisfies ServeStats;
        }
        case 'stop':
          await server.close();
          await new Promise<void>((resolve) => bareServer.close(() => resolve()));
          return { stopped: true };
      }
    };
    reply().then(
      (result) => send({ ok: true, result }).then(() => message.cmd === 'stop' && process.disconnect()),
      (err: unknown) => send({ ok: false, error: String((err as Error)?.stack ?? err) }),
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, dataDir, json] = process.argv.slice(2);
  if (mode === 'prepare') {
    const result = await prepare(dataDir!, JSON.parse(json!) as ScoreDataSize);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else if (mode === 'serve') {
    await serve(dataDir!, JSON.parse(json!) as ServeSettings);
  } else {
    throw new Error(`usage: bench/api-child.ts prepare|serve <dataDir> <json>`);
  }
}

// Wallet capture (POST /v1/credentials/wallets, spec 4.8) under a running scoring job. A merchant
// calls it after every payment, so it must not queue behind scoring: the identity half writes
// through the store's operational writer, not the main one, where a scoring run is one long
// transaction (pipeline/store/store.ts). In one run, on the same machine:
//
//   baseline   bare acknowledged store writes: single-row appends of a capture's row through a
//              fresh store's writer (`store.write`), `connections` callers at once, no HTTP, no
//              scoring run; the row is the capture's (sql/identity/wallet_capture_insert.sql);
//   idle       captures over real HTTP (autocannon in a child process, bench/capture-child.ts,
//              `connections` sockets) against a real server (`startServer`) in this process, no
//              scoring run; mixed wallets (EVM and Solana, several credentials), each capture
//              with a fresh idempotency key, so each appends a row as the baseline's writes do;
//   scoring    the same load while the server's job runner runs `score --full` over the score
//              bench's synthetic data set (bench/score-data.ts), this store's first run, which
//              also builds the kept aggregates: at the default size it lasts well past the
//              window. The window opens once the job is recorded as running (and its
//              transaction had time to start); after the window the bench checks the run is
//              still in flight, or fails.
//
// A probe, an empty write unit, is queued on the main writer as the scoring window opens: it is
// acknowledged only once the run commits (main_writer_ms_during_run, against main_writer_ms_idle),
// while the same probe on the operational writer is not held (operational_writer_ms_during_run).
// Any answer but 200 fails the bench.
import { execFile, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import bs58 from 'bs58';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import type { WriteUnit } from '../pipeline/store/group-commit.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { activeOverrides, changeAccountLimits } from '../api/usage/limits.ts';
import { at } from '../identity/store-values.ts';
import { benchSetting, type ScoreDataSize } from './score-data.ts';
import type { CaptureChildCommand, CaptureLoad, CaptureLoadResult, CaptureTuple } from './capture-child.ts';

const generator = fileURLToPath(new URL('./score-data.ts', import.meta.url));
const loadChild = fileURLToPath(new URL('./capture-child.ts', import.meta.url));
const sdnTinyCsv = fileURLToPath(new URL('../devnet/fixtures/ofac-sdn-tiny/sdn.csv', import.meta.url));
const progress = (step: string) => process.stderr.write(`bench capture: ${step}\n`);
/** Unmeasured requests (and baseline writes) per connection before the first measured phase. */
const warmUpPerConnection = 20;
const round = (x: number, digits = 0) => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface CaptureBenchSettings {
  /** The synthetic data set the scoring job runs over. */
  data: ScoreDataSize;
  /** Seconds each measured phase runs (the baseline, idle captures, captures under scoring). */
  seconds: number;
  /** Requests (or baseline writes) in flight at once. */
  connections: number;
  /** Distinct wallets captured (a quarter Solana, the rest EVM). */
  wallets: number;
  /** Operator credentials (each of its own verified account holder) the captures carry in turn. */
  credentials: number;
}

/**
 * BENCH_CAPTURE_ADDRESSES (60,000), BENCH_CAPTURE_TRANSFERS (600,000), BENCH_CAPTURE_AGENTS
 * (1,200), BENCH_CAPTURE_SECONDS (5), BENCH_CAPTURE_CONNECTIONS (32), BENCH_CAPTURE_WALLETS
 * (1,000), BENCH_CAPTURE_CREDENTIALS (3).
 */
export function captureBenchSettings(env: NodeJS.ProcessEnv = process.env): CaptureBenchSettings {
  const size = (name: string, fallback: number) => benchSetting(env, name, fallback);
  return {
    data: { addresses: size('BENCH_CAPTURE_ADDRESSES', 60_000), transfers: size('BENCH_CAPTURE_TRANSFERS', 600_000), agents: size('BENCH_CAPTURE_AGENTS', 1_200) },
    seconds: size('BENCH_CAPTURE_SECONDS', 5),
    connections: size('BENCH_CAPTURE_CONNECTIONS', 32),
    wallets: size('BENCH_CAPTURE_WALLETS', 1_000),
    credentials: size('BENCH_CAPTURE_CREDENTIALS', 3),
  };
}

export async function benchCapture(settings: CaptureBenchSettings = captureBenchSettings()): Promise<Record<string, number | boolean>> {
  progress('baseline: store.write appends, no HTTP, no scoring');
  const baseline = await baselineWrites(settings);

  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-capture-'));
  try {
    progress(`generating ${settings.data.addresses} addresses, ${settings.data.transfers} payments`);
    // The load generator starts while the data is made (it waits for its first command).
    const [loadStarted, generated] = await Promise.allSettled([startLoadChild(), generate(dataDir, settings.data)]);
    if (loadStarted.status === 'rejected') throw loadStarted.reason;
    const load = loadStarted.value;
    try {
      if (generated.status === 'rejected') throw generated.reason;
      const figures = await measureCaptures(dataDir, load, settings);
      return {
        addresses: settings.data.addresses,
        transfers: settings.data.transfers,
        agents: settings.data.agents,
        generate_s: round(generated.value.generate_ms / 1000, 1),
        connections: settings.connections,
        seconds: settings.seconds,
        wallets: settings.wallets,
        credentials: settings.credentials,
        baseline_writes_per_s: round(baseline.perS),
        baseline_p50_ms: round(baseline.p50, 2),
        baseline_p99_ms: round(baseline.p99, 2),
        captures_per_s_idle: round(figures.idlePerS),
        captures_idle_p50_ms: figures.idle.p50_ms,
        captures_idle_p99_ms: figures.idle.p99_ms,
        captures_per_s: round(figures.duringPerS),
        captures_p50_ms: figures.during.p50_ms,
        captures_p99_ms: figures.during.p99_ms,
        ratio: round(figures.duringPerS / baseline.perS, 2),
        ratio_idle: round(figures.idlePerS / baseline.perS, 2),
        ratio_scoring_vs_idle: round(figures.duringPerS / figures.idlePerS, 2),
        ...figures.scoring,
      };
    } finally {
      await load.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The server over the generated data: idle captures, then captures under the scoring job. */
async function measureCaptures(dataDir: string, load: LoadChild, settings: CaptureBenchSettings) {
  const server = await startServer(
    loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, SCORE_INTERVAL_SECONDS: '86400' }),
    silentLogger,
  );
  try {
    const { merchantKey, tuples } = await setUp(server, settings);
    const phase = async (keyPrefix: string, options: { seconds?: number; amount?: number }) =>
      checked(await load.run({ cmd: 'load', url: server.url, apiKey: merchantKey, tuples, connections: settings.connections, keyPrefix, ...options }));

    progress('warm-up');
    const warm = await phase('warm', { amount: warmUpPerConnection * settings.connections });
    progress('idle: captures, no scoring');
    const idle = await phase('idle', { seconds: settings.seconds });
    const mainIdle = await probe(server.store.write);

    progress('starting score --full');
    const jobStarted = performance.now();
    const job = await server.jobs.run('score', { full: true });
    let jobEnded = 0;
    const jobDone = job.done.then(
      () => void (jobEnded = performance.now()),
      (err: unknown) => {
        jobEnded = performance.now();
        throw err;
      },
    );
    jobDone.catch(() => undefined);
    await runningRecorded(server.store, job.runId, () => jobEnded > 0);
    // From the run row to the run's transaction: the job's handler queues it at once.
    await sleep(300);
    if (jobEnded) throw new Error('the scoring job ended before the window opened: raise BENCH_CAPTURE_ADDRESSES and BENCH_CAPTURE_TRANSFERS');

    progress('scoring: captures while the run is in flight');
    const windowStarted = performance.now();
    const mainProbe = timed(server.store.write);
    const operationalDuring = await probe(server.store.writeOperational);
    const during = await phase('scoring', { seconds: settings.seconds });
    const windowEnded = performance.now();
    const inFlight = jobEnded === 0 && mainProbe.ackedAt() === 0;
    if (!inFlight) {
      throw new Error(
        `the scoring run was not in flight for the whole window (job ${jobEnded ? 'ended' : 'running'}, main-writer probe ${mainProbe.ackedAt() ? 'acknowledged' : 'waiting'}): raise BENCH_CAPTURE_ADDRESSES and BENCH_CAPTURE_TRANSFERS`,
      );
    }
    progress('waiting for the scoring job to end');
    await jobDone;
    const mainDuring = await mainProbe.done;
    const [rows] = await server.store.read('SELECT count(*)::INTEGER AS n FROM wallet_captures');
    return {
      idle,
      idlePerS: idle.requests / idle.seconds,
      during,
      duringPerS: during.requests / during.seconds,
      scoring: {
        scoring_in_flight: inFlight,
        scoring_job_s: round((jobEnded - jobStarted) / 1000, 1),
        scoring_left_after_window_s: round((jobEnded - windowEnded) / 1000, 1),
        main_writer_ms_idle: round(mainIdle, 1),
        main_writer_ms_during_run: round(mainDuring),
        window_ms: round(windowEnded - windowStarted),
        operational_writer_ms_during_run: round(operationalDuring, 1),
        // Each answered capture appended its row (fresh idempotency keys): at least as many rows.
        captures_answered: warm.requests + idle.requests + during.requests,
        capture_rows: rows!.n as number,
      },
    };
  } finally {
    await server.close();
  }
}

/** The baseline: `connections` callers appending one capture row each per `store.write`, for `seconds`. */
async function baselineWrites(settings: CaptureBenchSettings): Promise<{ perS: number; p50: number; p99: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-capture-baseline-'));
  try {
    const store = await openStore({ dataDir: dir });
    try {
      const insert = sqlFile('identity/wallet_capture_insert');
      let n = 0;
      const append = () => {
        const i = n++;
        const wallet = `0x${(i % settings.wallets).toString(16).padStart(40, '0')}`;
        const now = new Date();
        return store.write((tx) => tx.run(insert, [`tok_${i % settings.credentials}`, 'op_bench', 'acc_bench', 'evm', wallet, `base-${i}`, at(now), BigInt(now.getTime()) * 1000n + BigInt(i)]));
      };
      const callers = async (until: () => boolean, latencies?: number[]) =>
        Promise.all(
          Array.from({ length: settings.connections }, async () => {
            while (until()) {
              const started = performance.now();
              await append();
              latencies?.push(performance.now() - started);
            }
          }),
        );
      // The same warm-up as the captures get.
      let warm = warmUpPerConnection * settings.connections;
      await callers(() => warm-- > 0);
      const latencies: number[] = [];
      const started = performance.now();
      const end = started + settings.seconds * 1000;
      await callers(() => performance.now() < end, latencies);
      const seconds = (performance.now() - started) / 1000;
      return { perS: latencies.length / seconds, ...percentiles(latencies) };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function generate(dir: string, size: ScoreDataSize): Promise<{ generate_ms: number }> {
  const env = { ...process.env, BENCH_SCORE_ADDRESSES: String(size.addresses), BENCH_SCORE_TRANSFERS: String(size.transfers), BENCH_SCORE_AGENTS: String(size.agents) };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', generator, dir], { env, maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { generate_ms: number };
}

/**
 * A merchant (enterprise, rate limits raised so none is reached) and `credentials` operator
 * credentials, each of an account holder verified on the sandbox verify page, as a merchant's
 * buyers would present them; and the mixed (credential, network, wallet) tuples to capture.
 */
async function setUp(server: RunningServer, settings: CaptureBenchSettings): Promise<{ merchantKey: string; tuples: CaptureTuple[] }> {
  await (await server.jobs.run('refresh-sanctions-list', {})).done;
  const merchant = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
  const report = await changeAccountLimits(server.store, merchant.id, { ratePerSecond: 100_000, ratePerMinute: 1_000_000 });
  server.keys.setLimitOverrides(merchant.id, activeOverrides(report.overrides));
  const tokens: string[] = [];
  for (let i = 0; i < settings.credentials; i++) {
    const holder = await createAccount(server.store, { plan: 'pro' }, server.keys);
    const refused = await post(server.url, '/v1/credentials', holder.api_key, {});
    const verifyUrl = (refused.body as { verify_url?: string }).verify_url;
    if (refused.status !== 409 || !verifyUrl) throw new Error(`POST /v1/credentials before verification answered ${refused.status}: ${JSON.stringify(refused.body)}`);
    const form = new URLSearchParams({ outcome: 'verified', jurisdiction: 'NL', age: '21+', name: `Bench Holder ${String.fromCharCode(65 + (i % 26))}${i}` });
    await fetch(verifyUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });
    const created = await post(server.url, '/v1/credentials', holder.api_key, { ttl_days: 7 });
    const credential = (created.body as { credential?: string }).credential;
    if (created.status !== 200 || !credential) throw new Error(`POST /v1/credentials after verification answered ${created.status}: ${JSON.stringify(created.body)}`);
    tokens.push(credential);
  }
  const tuples = Array.from({ length: settings.wallets }, (_, i): CaptureTuple => ({
    token: tokens[i % tokens.length]!,
    network: i % 4 === 3 ? 'solana' : 'evm',
    wallet: i % 4 === 3 ? solanaKey(i) : `0x${(i + 1).toString(16).padStart(40, '0')}`,
  }));
  return { merchantKey: merchant.api_key, tuples };
}

/** A Solana public key of its own for each i (capture checks the encoding: base58 of 32 bytes). */
function solanaKey(i: number): string {
  const key = Buffer.alloc(32, 0x5a);
  key.writeUInt32BE(i + 1, 28);
  return bs58.encode(key);
}

async function post(baseUrl: string, route: string, key: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Waits until the job's run row says running (or the job ended). */
async function runningRecorded(store: Store, runId: string, ended: () => boolean): Promise<void> {
  for (;;) {
    const [row] = await store.read(`SELECT count(*)::INTEGER AS n FROM job_runs WHERE run_id = $1 AND state = 'running'`, [runId]);
    if (row!.n || ended()) return;
    await sleep(20);
  }
}

type Writer = <T>(unit: WriteUnit<T>) => Promise<T>;
const emptyUnit: WriteUnit<unknown> = (tx) => tx.all('SELECT 1');

/** Milliseconds from queueing an empty unit on `write` to its acknowledgement. */
async function probe(write: Writer): Promise<number> {
  const started = performance.now();
  await write(emptyUnit);
  return performance.now() - started;
}

function timed(write: Writer): { done: Promise<number>; ackedAt(): number } {
  const started = performance.now();
  let acked = 0;
  const done = write(emptyUnit).then(() => (acked = performance.now()) - started);
  done.catch(() => undefined);
  return { done, ackedAt: () => acked };
}

function checked(result: CaptureLoadResult): CaptureLoadResult {
  if (result.failed > 0 || result.requests === 0) {
    const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}: ${count}`).join(', ');
    throw new Error(`captures: ${result.failed} of ${result.requests} requests were not answered 200 (${statuses})`);
  }
  return result;
}

interface LoadChild {
  run(command: CaptureLoad): Promise<CaptureLoadResult>;
  stop(): Promise<void>;
}

async function startLoadChild(): Promise<LoadChild> {
  const proc = fork(loadChild, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<never>((_, reject) => proc.on('exit', (code) => reject(new Error(`bench/capture-child.ts exited with ${code}`))));
  exited.catch(() => undefined);
  const nextMessage = () => Promise.race([new Promise<unknown>((resolve) => proc.once('message', resolve)), exited]);
  await nextMessage();
  let stopped = false;
  return {
    async run(command) {
      const reply = nextMessage();
      proc.send(command satisfies CaptureChildCommand);
      const answer = (await reply) as { ok: boolean; result?: CaptureLoadResult; error?: string };
      if (!answer.ok) throw new Error(`bench capture load: ${answer.error}`);
      return answer.result!;
    },
    async stop() {
      if (stopped || proc.exitCode !== null) return;
      stopped = true;
      const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.send({ cmd: 'stop' } satisfies CaptureChildCommand);
      await Promise.race([gone, sleep(5_000).then(() => void proc.kill())]);
    },
  };
}

function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { p50: q(0.5), p99: q(0.99) };
}

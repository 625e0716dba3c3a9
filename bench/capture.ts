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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { activeOverrides, changeAccountLimits } from '../api/usage/limits.ts';
import { at } from '../identity/store-values.ts';
import { benchSetting, type ScoreDataSize } from './score-data.ts';
import type { CaptureLoad, CaptureTuple } from './capture-child.ts';
import { verifiedCredential, solanaKey } from './identity-setup.ts';
import { withDataAndLoad, type LoadChild, type LoadFigures } from './load-child.ts';
import { probe, whileScoring } from './scoring-window.ts';

const loadChild = fileURLToPath(new URL('./capture-child.ts', import.meta.url));
const sdnTinyCsv = fileURLToPath(new URL('../devnet/fixtures/ofac-sdn-tiny/sdn.csv', import.meta.url));
const progress = (step: string) => process.stderr.write(`bench capture: ${step}\n`);
/** Unmeasured requests (and baseline writes) per connection before the first measured phase. */
const warmUpPerConnection = 20;
const round = (x: number, digits = 0) => Number(x.toFixed(digits));

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

  progress(`generating ${settings.data.addresses} addresses, ${settings.data.transfers} payments`);
  return withDataAndLoad<CaptureLoad, Record<string, number | boolean>>('capture', loadChild, settings.data, async (dataDir, load, generateMs) => {
    const figures = await measureCaptures(dataDir, load, settings);
    return {
      addresses: settings.data.addresses,
      transfers: settings.data.transfers,
      agents: settings.data.agents,
      generate_s: round(generateMs / 1000, 1),
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
  });
}

/** The server over the generated data: idle captures, then captures under the scoring job. */
async function measureCaptures(dataDir: string, load: LoadChild<CaptureLoad>, settings: CaptureBenchSettings) {
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

    progress('starting score --full; captures while the run is in flight');
    const window = await whileScoring(server, 'BENCH_CAPTURE_ADDRESSES and BENCH_CAPTURE_TRANSFERS', async () => ({
      operationalDuring: await probe(server.store.writeOperational),
      during: await phase('scoring', { seconds: settings.seconds }),
    }));
    const { operationalDuring, during } = window.result;
    progress('waiting for the scoring job to end');
    const scoring = await window.finish();
    const [rows] = await server.store.read('SELECT count(*)::INTEGER AS n FROM wallet_captures');
    return {
      idle,
      idlePerS: idle.requests / idle.seconds,
      during,
      duringPerS: during.requests / during.seconds,
      scoring: {
        ...scoring,
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
    tokens.push(await verifiedCredential(server.url, holder.api_key, { jurisdiction: 'NL', age: '21+' }, i));
  }
  const tuples = Array.from({ length: settings.wallets }, (_, i): CaptureTuple => ({
    token: tokens[i % tokens.length]!,
    network: i % 4 === 3 ? 'solana' : 'evm',
    wallet: i % 4 === 3 ? solanaKey(0x5a, i) : `0x${(i + 1).toString(16).padStart(40, '0')}`,
  }));
  return { merchantKey: merchant.api_key, tuples };
}

function checked(result: LoadFigures): LoadFigures {
  if (result.failed > 0 || result.requests === 0) {
    const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}: ${count}`).join(', ');
    throw new Error(`captures: ${result.failed} of ${result.requests} requests were not answered 200 (${statuses})`);
  }
  return result;
}


function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { p50: q(0.5), p99: q(0.99) };
}

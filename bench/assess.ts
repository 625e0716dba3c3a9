// POST /v1/assess (spec 4.2), the call a merchant's gate makes on every paid request, against the
// bare Koa route of bench/api.ts, and the same under a running scoring job. In one run, on the
// same machine, with autocannon in a child process (bench/assess-child.ts, `connections`
// sockets, no pipelining) against a real server (`startServer`) in this process:
//
//   scoring    live assess (below) while the server's job runner runs `score --full` over the score
//              bench's synthetic data set (bench/score-data.ts, generated in another child process):
//              the store's first run, which also rebuilds the payments, so it lasts well past the
//              window (a second full run over the same data takes about a second). The window opens
//              once the job is recorded as running (and 300 ms more); after it the bench checks the
//              run has not ended and that a write queued on the main writer as the window opened is
//              still waiting for the run's commit, or fails. Measured first, so that the phases
//              below see a scored store;
//   bare       once the run has committed: a bare Koa app in this process answering
//              {"ok":true,"service":"bench"} (bench/api.ts's baseline), sent the very requests the
//              assess phase sends (same bodies, same headers), so the client's own cost is the
//              same; it does not read them;
//   assess     live mode, wallet identities, every request with the full policy (require_kyc,
//              require_sanctions_clear, min_age 21, blocked and allowed jurisdictions) and a signer;
//              the wallets are a mix of ones tied to verified operators (claimed by their holder
//              with a signed challenge, or captured by a merchant under the holder's operator token;
//              EVM and Solana) and ones tied to nobody (payers of the data set: each is denied
//              kyc_required, with the verification session such a denial carries, a write). The keys
//              are `keys` scale accounts (a quota to count, a rate limit the rotation stays under, no
//              response signing) taken in turn;
//   test       the same policy and signers in test mode (`test: true`, the reserved addresses
//              0x…0001 to 0x…0007): no rate limit, quota, audit record or write.
//
// Every bench wallet is in the index before the load (entered as a first assess would enter it),
// so the load queues no rescoring: the first sight of a wallet (spec 3.3) is not measured, and the
// window's run is the only one. Each measured phase starts once the store's reads queued before it
// have started, and reports how long those it queued itself took to start after it (`*_reads_left_ms`:
// assess does not wait for its wallet's index check). The server's CPU per request is this
// process's CPU time over the phase and those reads (DuckDB's threads included) over its answers.
// Any answer but 200 fails the bench.
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import type { Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { benchSetting, type ScoreDataSize } from './score-data.ts';
import type { AssessLoad } from './assess-child.ts';
import { post, solanaKey, verifiedCredential } from './identity-setup.ts';
import { withDataAndLoad, type LoadChild, type LoadFigures } from './load-child.ts';
import { whileScoring } from './scoring-window.ts';

const loadChild = fileURLToPath(new URL('./assess-child.ts', import.meta.url));
// The real OFAC digital-currency address lists (signer checks) and the SDN names screened at verification.
const addressLists = fileURLToPath(new URL('../../shared/data/ofac/address-lists-2024-09-27', import.meta.url));
const sdnTinyCsv = fileURLToPath(new URL('../devnet/fixtures/ofac-sdn-tiny/sdn.csv', import.meta.url));
// An ETH address of SDN 27307 on those lists: a signer that denies sanctions_flagged.
const listedSigner = '0x098b716b8aaf21512996dc57eb0615e2383e2f96';
const benchStarted = performance.now();
const progress = (step: string) => process.stderr.write(`bench assess: ${((performance.now() - benchStarted) / 1000).toFixed(1)} s: ${step}\n`);
/** Unmeasured requests per connection before the first measured phase (after every key once). */
const warmUpPerConnection = 50;
const round = (x: number, digits = 0) => Number(x.toFixed(digits));

/** The policy of every live request: each rule of spec 4.2. */
export const benchPolicy = {
  require_kyc: true,
  require_sanctions_clear: true,
  min_age: 21,
  blocked_jurisdictions: ['IR', 'KP', 'CU', 'SY', 'RU'],
  allowed_jurisdictions: ['US', 'NL', 'DE', 'FR', 'GB', 'CA'],
} as const;

export interface AssessBenchSettings {
  /** The synthetic data set the window's scoring run scores (its first run). */
  data: ScoreDataSize;
  /** Seconds each measured phase runs. */
  seconds: number;
  /** Requests in flight at once, in every phase. */
  connections: number;
  /** Scale merchant accounts whose keys the requests take in turn. */
  keys: number;
  /** Verified operators (account holders verified on the sandbox verify page), 4 wallets each. */
  operators: number;
  /** Wallets tied to nobody (payers of the data set). */
  unknownWallets: number;
  /** A directory for V8 CPU profiles of this process during the live and test-mode assess phases. */
  cpuProfileDir?: string;
}

/**
 * BENCH_ASSESS_ADDRESSES (120,000), BENCH_ASSESS_TRANSFERS (1,200,000), BENCH_ASSESS_AGENTS (1,200),
 * BENCH_ASSESS_SECONDS (5), BENCH_ASSESS_CONNECTIONS (10), BENCH_ASSESS_KEYS (500),
 * BENCH_ASSESS_OPERATORS (20), BENCH_ASSESS_UNKNOWN_WALLETS (20), BENCH_ASSESS_CPU_PROF.
 */
export function assessBenchSettings(env: NodeJS.ProcessEnv = process.env): AssessBenchSettings {
  const size = (name: string, fallback: number) => benchSetting(env, name, fallback);
  return {
    // Sized for a fast day: the full run must outlast the 5 s window, and 9,000 assess calls a
    // second must stay under 500 scale keys' 40 a second each (2026-12-02).
    data: { addresses: size('BENCH_ASSESS_ADDRESSES', 120_000), transfers: size('BENCH_ASSESS_TRANSFERS', 1_200_000), agents: size('BENCH_ASSESS_AGENTS', 1_200) },
    seconds: size('BENCH_ASSESS_SECONDS', 5),
    connections: size('BENCH_ASSESS_CONNECTIONS', 10),
    keys: size('BENCH_ASSESS_KEYS', 500),
    operators: size('BENCH_ASSESS_OPERATORS', 20),
    unknownWallets: size('BENCH_ASSESS_UNKNOWN_WALLETS', 20),
    cpuProfileDir: env.BENCH_ASSESS_CPU_PROF || undefined,
  };
}

export async function benchAssess(settings: AssessBenchSettings = assessBenchSettings()): Promise<Record<string, number | boolean>> {
  progress(`generating ${settings.data.addresses} addresses, ${settings.data.transfers} payments`);
  return withDataAndLoad<AssessLoad, Record<string, number | boolean>>('assess', loadChild, settings.data, async (dataDir, load, generateMs) => ({
    addresses: settings.data.addresses,
    transfers: settings.data.transfers,
    agents: settings.data.agents,
    generate_s: round(generateMs / 1000, 1),
    connections: settings.connections,
    seconds: settings.seconds,
    keys: settings.keys,
    ...(await measure(dataDir, load, settings)),
  }));
}

async function measure(dataDir: string, load: LoadChild<AssessLoad>, settings: AssessBenchSettings) {
  const bare = await startBareKoa();
  const server = await startServer(
    loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      SANCTIONS_LIST_SOURCE: addressLists,
      SANCTIONS_NAMES_SOURCE: sdnTinyCsv,
      // No scheduled scoring run: the only one is the window's.
      SCORE_INTERVAL_SECONDS: '86400',
      SCORE_FULL_INTERVAL_SECONDS: '0',
      // The setup's verify-page posts all come from 127.0.0.1.
      IP_RATE_PER_SECOND: '100000',
      IP_RATE_PER_MINUTE: '1000000',
    }),
    silentLogger,
  );
  try {
    const setup = await setUp(server, settings);
    const { keys, live, test } = setup;
    const phase = async (url: string, bodies: string[], options: { seconds?: number; amount?: number }) =>
      checked(url, await load.run({ cmd: 'load', url, path: '/v1/assess', bodies, keys, connections: settings.connections, ...options }));
    const cpu = () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    };
    // A phase starts once the store's reads queued before it have started (the pool serves them
    // in arrival order); what the phase itself left queued is timed after it (`drainMs`): the
    // index check of every wallet-mode assess runs after its answer. Its CPU is counted in `cpuUs`.
    const measured = async (url: string, bodies: string[], profile?: string) => {
      await drainReads(server.store);
      const session = profile && settings.cpuProfileDir ? await startProfile() : null;
      const before = cpu();
      const result = await phase(url, bodies, { seconds: settings.seconds });
      const ended = performance.now();
      await drainReads(server.store);
      const drainMs = performance.now() - ended;
      const cpuUs = (cpu() - before) / result.requests;
      if (session) await stopProfile(session, settings.cpuProfileDir!, profile!);
      return { ...result, rps: result.requests / result.seconds, cpuUs, drainMs };
    };

    progress('warm-up: every key once, then more');
    const warm = await phase(server.url, live, { amount: keys.length + warmUpPerConnection * settings.connections });
    await phase(server.url, test, { amount: warmUpPerConnection * settings.connections });
    await phase(bare.url, live, { amount: warmUpPerConnection * settings.connections });
    // The load must not have queued a rescoring: the window's run is to be the only one.
    const queued = await server.jobs.queued();
    const [scoreRuns] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM job_runs WHERE job_name = 'score'`);
    if (queued.length > 0 || scoreRuns!.n) throw new Error(`the warm-up queued ${queued.length} jobs and ran ${scoreRuns!.n} scoring runs: a bench wallet was not in the index`);

    await drainReads(server.store);
    progress('starting score --full; assess, live, while the scoring run is in flight');
    const window = await whileScoring(server, 'BENCH_ASSESS_ADDRESSES and BENCH_ASSESS_TRANSFERS', () => phase(server.url, live, { seconds: settings.seconds }));
    const during = window.result;
    // The window's reads still queued (the run holds the writer, not the readers).
    const duringDrainMs = await timedDrain(server.store, window.windowEnded);
    progress('waiting for the scoring job to end');
    const scoring = await window.finish();
    const [scored] = await server.store.read('SELECT count(*)::INTEGER AS n FROM address_scores');

    // On the scored store. Live assess last: work it leaves behind (its index checks are not
    // awaited by the answers) must not be measured with another phase.
    progress('bare Koa route');
    const bareKoa = await measured(bare.url, live);
    progress('assess, test mode');
    const assessTest = await measured(server.url, test, 'assess-test');
    progress('assess, live');
    const assessLive = await measured(server.url, live, 'assess-live');

    await server.audit.flush();
    const [sessions] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM verification_sessions WHERE context = 'assess'`);
    const [audited] = await server.store.read('SELECT count(*)::INTEGER AS n FROM assessments');
    const liveAnswered = setup.mix.bodies! + warm.requests + during.requests + assessLive.requests;

    const duringRps = during.requests / during.seconds;
    return {
      operators: settings.operators,
      tied_wallets: setup.tiedWallets,
      unknown_wallets: settings.unknownWallets,
      ...setup.mix,
      bare_koa_rps: round(bareKoa.rps),
      bare_koa_p50_ms: bareKoa.p50_ms,
      bare_koa_p99_ms: bareKoa.p99_ms,
      bare_koa_cpu_us_per_request: round(bareKoa.cpuUs),
      assess_rps: round(assessLive.rps),
      assess_p50_ms: assessLive.p50_ms,
      assess_p99_ms: assessLive.p99_ms,
      assess_cpu_us_per_request: round(assessLive.cpuUs),
      assess_reads_left_ms: round(assessLive.drainMs),
      ratio: round(assessLive.rps / bareKoa.rps, 2),
      assess_test_mode_rps: round(assessTest.rps),
      assess_test_mode_p50_ms: assessTest.p50_ms,
      assess_test_mode_p99_ms: assessTest.p99_ms,
      assess_test_mode_cpu_us_per_request: round(assessTest.cpuUs),
      assess_test_mode_reads_left_ms: round(assessTest.drainMs),
      ratio_test_mode: round(assessTest.rps / bareKoa.rps, 2),
      assess_rps_during_scoring: round(duringRps),
      assess_p50_ms_during_scoring: during.p50_ms,
      assess_p99_ms_during_scoring: during.p99_ms,
      assess_reads_left_ms_during_scoring: round(duringDrainMs),
      ratio_during_scoring: round(duringRps / bareKoa.rps, 2),
      ratio_scoring_vs_idle: round(duringRps / assessLive.rps, 2),
      scored_addresses: scored!.n as number,
      ...scoring,
      // Every live answer was recorded (test mode is not): at least as many rows as answers (the
      // difference is the requests in flight when a phase ended).
      live_answered: liveAnswered,
      audit_records: audited!.n as number,
      // A denial's session is written only once its page is used (identity/deferred-sessions.ts): 0 here.
      assess_sessions_written: sessions!.n as number,
    };
  } finally {
    await server.close();
    await bare.close();
  }
}

/** bench/api-child.ts's bare Koa app, in this process (the server's). */
async function startBareKoa(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { ok: true, service: 'bench' };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Setup {
  keys: string[];
  /** The live requests' bodies, one per wallet. */
  live: string[];
  /** Test mode's: each reserved address once. */
  test: string[];
  tiedWallets: number;
  /** What the live bodies were answered, each once before the load. */
  mix: Record<string, number>;
}

/**
 * The merchants' keys; `operators` account holders, each verified on the sandbox verify page,
 * claiming one EVM wallet with a signed challenge and captured by a merchant under its operator
 * token with two EVM payers of the data set and a Solana wallet; the live bodies (one per wallet) and the
 * test-mode ones; and what each live body is answered.
 */
async function setUp(server: RunningServer, settings: AssessBenchSettings): Promise<Setup> {
  progress('sanctions lists, merchant keys, verified operators, claims and captures');
  await (await server.jobs.run('refresh-sanctions-list', {})).done;
  const keys: string[] = [];
  for (let i = 0; i < settings.keys; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, settings.keys - i) }, (_, j) => createAccount(server.store, { plan: 'scale', name: `bench merchant ${i + j}` }, server.keys)));
    keys.push(...batch.map((a) => a.api_key));
  }
  let k = 0;
  const merchantKey = () => keys[k++ % keys.length]!;

  // Payers of the data set in a fixed order: each has a record once the window's run commits.
  const wanted = settings.operators * 2 + settings.unknownWallets;
  const payers = (await server.store.read('SELECT DISTINCT from_address AS address FROM token_transfers ORDER BY hash(from_address), from_address LIMIT $1', [wanted])).map((r) => String(r.address));
  if (payers.length < wanted) throw new Error(`only ${payers.length} payers in the data set: raise BENCH_ASSESS_ADDRESSES`);
  const indexed: { address: string; family: 'evm' | 'solana' }[] = [];
  const live: object[] = [];
  const signerOf = (wallets: { address: string; network: 'evm' | 'solana' }[], j: number, n: number) => {
    // Mostly another wallet of the same person (pass); one body in ten a stranger's wallet
    // (wallet_signer_mismatch), one in twenty a sanctioned one (sanctions_flagged).
    if (n % 20 === 19) return { address: listedSigner, network: 'evm' };
    if (n % 10 === 9) return { address: evmAddress(0xbad000 + n), network: 'evm' };
    const same = wallets.filter((w) => w.network === wallets[j]!.network);
    return same[(same.indexOf(wallets[j]!) + 1) % same.length]!;
  };
  for (let i = 0; i < settings.operators; i++) {
    const holder = await createAccount(server.store, { plan: 'pro', name: `bench holder ${i}` }, server.keys);
    // Most are adults of an allowed country (allow); one in ten is 18+ (age_insufficient), one in ten of another country (jurisdiction_restricted).
    const person = { jurisdiction: i % 10 === 9 ? 'BR' : i % 2 ? 'US' : 'NL', age: i % 10 === 8 ? '18+' : '21+' };
    const token = await verifiedCredential(server.url, holder.api_key, person, i);
    const claimed = privateKeyToAccount(`0x${(0xbe0000 + i).toString(16).padStart(64, '0')}`);
    await claim(server.url, holder.api_key, claimed);
    const solana = solanaKey(0x5b, i);
    const wallets: { address: string; network: 'evm' | 'solana' }[] = [
      { address: claimed.address.toLowerCase(), network: 'evm' },
      { address: payers[2 * i]!, network: 'evm' },
      { address: payers[2 * i + 1]!, network: 'evm' },
      { address: solana, network: 'solana' },
    ];
    for (const w of wallets.slice(1)) {
      const captured = await post(server.url, '/v1/credentials/wallets', merchantKey(), { operator_token: token, wallet_address: w.address, network: w.network });
      if (captured.status !== 200) throw new Error(`capture answered ${captured.status}: ${JSON.stringify(captured.body)}`);
    }
    indexed.push(...wallets.map((w) => ({ address: w.address, family: w.network })));
    wallets.forEach((w, j) => live.push({ address: w.address, policy: benchPolicy, signer: signerOf(wallets, j, live.length) }));
  }
  const tiedWallets = live.length;
  for (const address of payers.slice(settings.operators * 2)) {
    live.push({ address, policy: benchPolicy, signer: { address, network: 'evm' } });
    indexed.push({ address, family: 'evm' });
  }
  // Every wallet enters the index as a first assess of it would (spec 3.3), so the load queues no rescoring.
  await server.store.write(async (tx) => {
    for (const w of indexed) await tx.run(sqlFile('serve/known_address_insert'), [w.address, w.family, 'assess']);
  });
  const test = Array.from({ length: 7 }, (_, i) => {
    const address = `0x${'0'.repeat(39)}${i + 1}`;
    return JSON.stringify({ address, policy: benchPolicy, signer: { address, network: 'evm' }, test: true });
  });

  // Each live body once, its answer tallied: the mix the load is made of.
  const mix: Record<string, number> = { bodies: live.length, bodies_allow: 0, bodies_deny: 0, bodies_kyc_required: 0, bodies_age_insufficient: 0, bodies_jurisdiction_restricted: 0, bodies_sanctions_flagged: 0, bodies_signer_mismatch: 0 };
  for (const body of live) {
    const answer = await post(server.url, '/v1/assess', merchantKey(), body);
    if (answer.status !== 200) throw new Error(`assess answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const a = answer.body as { decision: string; decision_reasons: string[]; signer_match?: { kind: string } };
    mix[`bodies_${a.decision}`]! += 1;
    for (const reason of a.decision_reasons) if (`bodies_${reason}` in mix) mix[`bodies_${reason}`]! += 1;
    if (a.signer_match?.kind === 'wallet_signer_mismatch') mix.bodies_signer_mismatch! += 1;
  }
  return { keys, live: live.map((b) => JSON.stringify(b)), test, tiedWallets, mix };
}

/** The account claims the wallet: a challenge, personal_sign, the claim. */
async function claim(baseUrl: string, key: string, wallet: ReturnType<typeof privateKeyToAccount>): Promise<void> {
  const issued = await post(baseUrl, '/v1/wallets/challenge', key, { address: wallet.address, network: 'evm' });
  if (issued.status !== 200) throw new Error(`challenge answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  const message = (issued.body as { message: string }).message;
  const claimed = await post(baseUrl, '/v1/wallets/claim', key, { message, signature: await wallet.signMessage({ message }) });
  if (claimed.status !== 200) throw new Error(`claim answered ${claimed.status}: ${JSON.stringify(claimed.body)}`);
}

const evmAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/**
 * Until the reads queued so far have started: the read pool serves callers in arrival order, so a
 * read queued now starts after them. Twice, for reads the first ones queue when they end.
 */
async function drainReads(store: Store): Promise<void> {
  for (let i = 0; i < 2; i++) await store.read('SELECT 1');
}

/** drainReads, in milliseconds since `since`. */
async function timedDrain(store: Store, since: number): Promise<number> {
  await drainReads(store);
  return performance.now() - since;
}

function checked(url: string, result: LoadFigures): LoadFigures {
  if (result.failed > 0 || result.requests === 0) {
    const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}: ${count}`).join(', ');
    // A scale key takes 40 requests/s: 200 keys carry at most 8,000 a second.
    const hint = result.statuses['429'] ? '; 429s: raise BENCH_ASSESS_KEYS' : '';
    throw new Error(`${url}: ${result.failed} of ${result.requests} requests were not answered 200 (${statuses}; connection errors ${result.errors}, timeouts ${result.timeouts})${hint}`);
  }
  return result;
}

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, dir: string, name: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
}


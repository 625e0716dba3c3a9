// `reputation serve`: the owner process. Opens the store, serves the public API and the local
// admin endpoint, runs the in-process job scheduler, and on SIGINT/SIGTERM stops accepting work,
// finishes queued writes, checkpoints and closes the database.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicBaseUrlOf, signupUrlOf, type Config } from '../pipeline/config.ts';
import { explainPortInUse } from '../pipeline/port-in-use.ts';
import type { Logger } from '../pipeline/log.ts';
import { openStore, operationalStore, type Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { parseAddress } from '../pipeline/address.ts';
import { createSanctionsLookup } from '../pipeline/sanctions/lookup.ts';
import { isKnownAddress } from './reputation/lookup.ts';
import { loadApiKeyIndex, type ApiKeyIndex } from './accounts.ts';
import { createApiListener } from './app.ts';
import { createApiServer } from './http-server.ts';
import { loadOrCreateSigningKey, type ResponseSigner } from './security/signing.ts';
import { createAdminApp } from './admin/app.ts';
import { removeAdminFiles, writeAdminFiles } from './admin/files.ts';
import { newSecret } from '../pipeline/secrets.ts';
import { UsageMeter } from './usage/meter.ts';
import { RecordCache } from './reputation/cache.ts';
import { scoreStatus } from './reputation/record.ts';
import { startInProcessRunner } from '../jobs/in-process.ts';
import { startBullmqRunner } from '../jobs/bullmq/owner-runner.ts';
import { closeInterruptedRuns, createRunLog, type RunLog } from '../jobs/run-log.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { IdentityService } from '../identity/service.ts';
import { createKycProvider } from '../identity/kyc/from-config.ts';
import { createNameScreening } from '../identity/screening.ts';
import { evmChainClients } from '../identity/wallets/siwe.ts';
import { loadIdentityState, type IdentityState } from '../identity/state.ts';
import { DeferredSessions } from '../identity/deferred-sessions.ts';
import { AuditTrail } from '../identity/assess/audit.ts';

export interface RunningServer {
  url: string;
  adminUrl: string;
  store: Store;
  keys: ApiKeyIndex;
  jobs: JobRunner;
  runs: RunLog;
  /** The API's cache of served reputation records (its counters are read by tests and the bench). */
  records: RecordCache;
  /** How many lookups the hot path answered without Koa (read by tests and the bench). */
  hotLookups(): number;
  /** How many assessments the hot path answered without Koa (read by tests and the bench). */
  hotAssessments(): number;
  /** The identity half (sessions, operators, the verify page's actions). */
  identity: IdentityService;
  /** Assess's decision audit trail (buffered; written every 200 ms and at close). */
  audit: AuditTrail;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Block-range readers inside the owner when REDIS_URL is set (0: only separate workers read). */
  ioWorkersInOwner?: number;
  /** The API's clock (score status, the view variant's recency); tests move it. */
  now?: () => Date;
  /** How often usage counts reach the store (default 5 s); close() always flushes. */
  usageFlushIntervalMs?: number;
  /** How often assess's audit records reach the store (default 200 ms); close() always flushes. */
  auditFlushIntervalMs?: number;
}

export async function startServer(config: Config, log: Logger, options: ServerOptions = {}): Promise<RunningServer> {
  const provider = createKycProvider(config);
  const store = await openStore({ dataDir: config.dataDir, readConnections: config.readConnections });
  let keys: ApiKeyIndex;
  let signer: ResponseSigner;
  let identityState: IdentityState;
  let deferred: DeferredSessions;
  try {
    keys = await loadApiKeyIndex(store);
    identityState = await loadIdentityState(store);
    signer = loadOrCreateSigningKey(config.dataDir, log);
    deferred = DeferredSessions.load(config.dataDir, provider.name, log);
  } catch (err) {
    await store.close();
    throw err;
  }
  const interrupted = await closeInterruptedRuns(store);
  if (interrupted > 0) log.warn('recorded job runs cut off by the previous stop as failed', { runs: interrupted });
  const runs = createRunLog(store);
  let jobs: JobRunner;
  try {
    jobs = config.redisUrl
      ? await startBullmqRunner({ store, config, log: log.child('jobs'), runs, identityState, redisUrl: config.redisUrl, ioWorkersInOwner: options.ioWorkersInOwner })
      : startInProcessRunner({ store, config, log: log.child('jobs'), runs, identityState });
    // The BullMQ runner registers schedules itself once Redis answers (start is not blocked on it).
    if (jobs.kind === 'in-process') await jobs.reloadSchedules();
  } catch (err) {
    await store.close();
    throw err;
  }

  const usage = new UsageMeter({ store, now: options.now, log: log.child('usage'), flushIntervalMs: options.usageFlushIntervalMs });
  const { staleAfterSeconds } = config;
  const records = new RecordCache(store, { size: config.recordCacheSize, status: (scoredAt, now) => scoreStatus(scoredAt, now, staleAfterSeconds) });
  // The API's listener is made once the port is known (the signup URL's default has it: PORT=0
  // picks one at listen). Nothing reaches the server before: the listener is set in the same
  // turn as the listen completes, and connections are only read in a later one.
  if (config.kycProvider === 'sandbox') {
    log.warn('KYC_PROVIDER is sandbox: the verify page lets anyone choose their verification outcome (answers say test: true); set KYC_PROVIDER=stripe for real verification');
  }
  // verify_url, poll_url and agent_memory point at the service's own public address, known once
  // the API listens (PORT=0 picks the port then).
  let serviceBaseUrl = '';
  const knownWallets = new Set<string>();
  // Assess notes each live decision here; the rows reach the operational writer in batches, never
  // on the request's path (identity/assess/audit.ts).
  const audit = new AuditTrail({ store, log: log.child('audit'), flushIntervalMs: options.auditFlushIntervalMs });
  const identity = new IdentityService({
    // Its writes must not wait for a scoring run's transaction (a merchant captures a wallet after
    // every payment): they go to the store's operational writer.
    store: operationalStore(store),
    state: identityState,
    log: log.child('identity'),
    provider,
    deferred,
    screening: createNameScreening(store),
    serviceBaseUrl: () => serviceBaseUrl,
    supportEmail: () => config.supportEmail ?? `support@${new URL(serviceBaseUrl).hostname}`,
    freshnessDays: config.sanctionsFreshnessDays,
    // Wallet claims verify contract wallets (ERC-1271/6492) on the chains with an RPC URL.
    evmChains: evmChainClients(Object.values(config.chains)),
    audit,
    // On the identity clock: a list's age decides the signer check.
    sanctions: createSanctionsLookup(store, { now: () => (options.now?.() ?? new Date()).getTime() }),
    sanctionsMaxAgeSeconds: config.sanctionsListMaxAgeHours * 3600,
    indexWallet: (address, refresh) => {
      // An address once known stays known: asked again, it costs no query (gates assess on every paid request).
      if (!refresh && knownWallets.has(address)) return;
      indexAssessedWallet(store, jobs, address, refresh).then(
        () => rememberKnown(knownWallets, address),
        (err: unknown) => log.warn('could not queue the scoring of an assessed wallet', { address, error: String(err) }),
      );
    },
    now: options.now,
  });
  let listener: http.RequestListener | undefined;
  let hot: ReturnType<typeof createApiListener>['hot'];
  let hotAssess: ReturnType<typeof createApiListener>['hotAssess'] | undefined;
  const api = createApiServer((req, res) => listener!(req, res));
  const adminToken = newSecret('adm_');
  // The same server as the API's: a request Node's parser refuses is answered in the API's format too.
  const admin = createApiServer(createAdminApp({ store, config, log: log.child('admin'), keys, runs, jobs, usage, identity, audit }, adminToken).callback());

  try {
    await listen(api, config.port, config.host);
    serviceBaseUrl = publicBaseUrlOf(config, (api.address() as AddressInfo).port);
    ({ listener, hot, hotAssess } = createApiListener({
      identity,
      store, keys, log, signupUrl: signupUrlOf(config, (api.address() as AddressInfo).port), now: options.now, usage, redisUrl: config.redisUrl, signer, records, staleAfterSeconds,
      proxy: { hops: config.trustProxyHops, ipHeader: config.proxyIpHeader },
      ipRateLimits: { perMinute: config.ipRatePerMinute, perSecond: config.ipRatePerSecond },
    }));
    await listen(admin, 0, '127.0.0.1');
  } catch (err) {
    await Promise.all([stopListening(api), stopListening(admin), jobs.stop(), usage.close(), audit.close()]);
    await store.close();
    throw explainPortInUse(err, config.port, config.host, 'stop the other server or set PORT');
  }
  const url = `http://${config.host}:${(api.address() as AddressInfo).port}`;
  const adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`;
  writeAdminFiles(config.dataDir, { pid: process.pid, url: adminUrl, token: adminToken });
  log.info('serving', { url, dataDir: config.dataDir, chains: Object.keys(config.chains) });

  // When tokens were last used (GET /v1/credentials shows it from memory) reaches the store in
  // one write every few seconds, not one per use.
  const tokenUseFlush = setInterval(() => {
    identityState.tokens.flushUses(identity.deps.store).catch((err: unknown) => log.warn('could not record token uses; will retry', { error: String(err) }));
  }, 5_000);
  tokenUseFlush.unref();
  let closing: Promise<void> | null = null;
  return {
    url,
    adminUrl,
    store,
    keys,
    jobs,
    runs,
    records,
    hotLookups: () => hot?.answered ?? 0,
    hotAssessments: () => hotAssess?.answered ?? 0,
    identity,
    audit,
    close: () =>
      (closing ??= (async () => {
        removeAdminFiles(config.dataDir);
        await Promise.all([stopListening(api), stopListening(admin), jobs.stop()]);
        // After the listeners: no request counts any more, so this flush is the last.
        await usage.close();
        clearInterval(tokenUseFlush);
        await identityState.tokens.flushUses(identity.deps.store);
        // After the listeners too: no decision is recorded any more, so nothing is left behind.
        await audit.close();
        await store.close();
        log.info('stopped cleanly');
      })()),
  };
}

/** Bounded: past a million addresses the set starts again (each is looked up once more). */
function rememberKnown(known: Set<string>, address: string): void {
  if (known.size >= 1_000_000) known.clear();
  known.add(address);
}

/**
 * Spec 3.3: assess of an address the index does not know gives it a minimal entry and queues its
 * scoring; `refresh` queues a rescoring whatever it is. The score job of one address is keyed by
 * it, so a burst of assessments of one address queues one run.
 */
async function indexAssessedWallet(store: Store, jobs: JobRunner, address: string, refresh: boolean): Promise<void> {
  const known = await isKnownAddress(store, address);
  if (known && !refresh) return;
  if (!known) {
    const family = parseAddress(address)!.family;
    await store.write((tx) => tx.run(sqlFile('serve/known_address_insert'), [address, family, 'assess']));
  }
  await jobs.run('score', { address });
}

/**
 * Closes `server` on the first SIGINT/SIGTERM, then ends the process; a second signal exits at
 * once. Ending it explicitly: once the store is closed nothing is left to lose, and an ioredis
 * client BullMQ created would otherwise keep retrying an unreachable Redis, and the process
 * alive, forever (taskforcesh/bullmq#4656).
 */
export function closeOnSignals(server: { close(): Promise<void> }, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(130);
      stopping = true;
      log.info(`received ${signal}, shutting down`);
      server.close().then(() => {
        resolve();
        setImmediate(() => process.exit(0));
      }, (err: unknown) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stopListening(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    // Node 19+ closes idle keep-alive connections here too; requests in flight finish first.
    server.close(() => resolve());
  });
}

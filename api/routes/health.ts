// GET /health: free, no key. Reports the database (a query through the read pool), Redis when
// REDIS_URL is set (a PING on a short-lived connection, 1 s budget), and the newest scoring run
// with its age.
//   ok         everything answers and the newest run is at most STALE_AFTER_SECONDS (24 h) old
//   degraded   200: the API still serves lookups from the database, but Redis (the job queue) is
//              down, no scoring run exists yet, or the newest run is older than that (records are
//              `stale`)
//   unhealthy  503: the database does not answer; nothing can be served
// It also names the service's own public address (`service_url`, PUBLIC_BASE_URL): where the gate
// library sends agents (spec 2.5: never an address of the merchant's configuration).
import type Router from '@koa/router';
import { Redis } from 'ioredis';
import { modelVersion } from '../../pipeline/score/run.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { defaultStaleAfterSeconds } from '../../pipeline/config.ts';
const redisTimeoutMs = 1_000;

export interface HealthDeps {
  store: Store;
  startedAt: Date;
  redisUrl?: string;
  now?: () => Date;
  /** The configured lag (config staleAfterSeconds); default 24 h. */
  staleAfterSeconds?: number;
  /** The service's public address, once the API listens. */
  serviceUrl?: () => string;
}

export function healthRoutes(router: Router, deps: HealthDeps): void {
  router.get('/health', async (ctx) => {
    const now = deps.now?.() ?? new Date();
    const staleAfter = deps.staleAfterSeconds ?? defaultStaleAfterSeconds;
    const serviceUrl = deps.serviceUrl?.();
    const [db, redis] = await Promise.all([checkDatabase(deps.store, now, staleAfter), deps.redisUrl ? pingRedis(deps.redisUrl) : null]);
    const scoring = db.scoring;
    const status = !db.ok
      ? 'unhealthy'
      : (redis && !redis.ok) || !scoring.last_run_id || scoring.stale
        ? 'degraded'
        : 'ok';
    ctx.status = status === 'unhealthy' ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      status,
      version: 'v1',
      ...(serviceUrl ? { service_url: serviceUrl } : {}),
      database: db.ok ? { ok: true, latency_ms: db.latencyMs } : { ok: false, error: db.error },
      redis: redis ? { configured: true, ...redis } : { configured: false },
      scoring,
      uptime_seconds: Math.round((now.getTime() - deps.startedAt.getTime()) / 1000),
      checked_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
  });
}

interface ScoringHealth {
  last_run_id: number | null;
  last_scored_at: string | null;
  age_seconds: number | null;
  model_version: string;
  last_run_kind: string | null;
  stale: boolean | null;
}

async function checkDatabase(store: Store, now: Date, staleAfterSeconds: number) {
  const started = performance.now();
  const scoring: ScoringHealth = { last_run_id: null, last_scored_at: null, age_seconds: null, model_version: modelVersion, last_run_kind: null, stale: null };
  try {
    const [row] = await withTimeout(store.read(sqlFile('serve/newest_run')), 2_000, 'the database did not answer within 2 s');
    if (row) {
      const scoredAt = String(row.scored_at);
      const age = Math.max(0, Math.round((now.getTime() - Date.parse(scoredAt)) / 1000));
      Object.assign(scoring, {
        last_run_id: Number(row.run_id),
        last_scored_at: scoredAt,
        age_seconds: age,
        model_version: String(row.model_version),
        last_run_kind: row.kind === null ? null : String(row.kind),
        stale: age > staleAfterSeconds,
      });
    }
    return { ok: true as const, latencyMs: Math.round(performance.now() - started), scoring };
  } catch (err) {
    return { ok: false as const, error: oneLine(err), scoring };
  }
}

async function pingRedis(url: string): Promise<{ ok: boolean; latency_ms?: number; error?: string }> {
  const started = performance.now();
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: redisTimeoutMs,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      redisTimeoutMs,
      `no answer within ${redisTimeoutMs} ms`,
    );
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, error: oneLine(err) };
  } finally {
    redis.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
}

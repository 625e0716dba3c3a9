// GET /v1/stats (spec 4.9): the `v2` body the newest scoring run computed (sql/score/stats.sql),
// served from memory until a newer run exists; `Cache-Control: private, max-age=1800`. Free of
// quota (it never calls the usage meter). Before the first run: the same shape with zeros.
import type Router from '@koa/router';
import type { Json } from '@duckdb/node-api';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { dataSemantics } from '../reputation/record.ts';

export type StatsName = 'v2' | 'x402' | 'erc8004';

const noRunCaveat = 'No scoring run has completed yet: every count is zero.';
const grades = { A: 0, B: 0, C: 0, D: 0, F: 0 };

/** What each endpoint answers before the first scoring run: its shape, zeros, nulls for averages. */
export const emptyStats: Record<StatsName, Json> = {
  v2: {
    version: 'v2',
    as_of_time: null,
    data_semantics: dataSemantics,
    erc8004: { known_agents: 0, by_chain: {}, metadata_quality_distribution: { real: 0, placeholder: 0, unknown: 0 } },
    reputation: {
      total_addresses: 0,
      scored_addresses: 0,
      entity_distribution: { agent: 0, service: 0, wallet: 0, hybrid: 0, unknown: 0 },
      score_distribution: grades,
    },
    payments: {
      addresses_with_candidate_payment_activity: 0,
      addresses_with_verified_payment_activity: 0,
      total_candidate_transactions: 0,
      total_verified_transactions: 0,
      verification_status_summary: { candidate: 0, verified: 0 },
    },
    caveats: [noRunCaveat],
  },
  x402: {
    total_wallets: 0,
    distribution: grades,
    avg_score: null,
    max_score: null,
    min_score: null,
    wallets_as_payer: 0,
    wallets_as_payee: 0,
    wallets_both_roles: 0,
    total_transactions: 0,
    roles: { agent: 0, hybrid: 0, service: 0 },
    identified_agents: 0,
    data_source: 'x402 candidate payments (EIP-3009 and Permit2) on no chains',
    version: 'v1',
  },
  erc8004: {
    total_agents: 0,
    average_score: null,
    max_score: null,
    min_score: null,
    grade_distribution: Object.fromEntries(Object.keys(grades).map((g) => [g, { count: 0, pct: 0 }])),
    chains: {},
    scoring: {
      weights: { identity: 0.2, activity: 0.2, capability: 0.3, reach: 0.05, trust: 0.25 },
      version: 'v1',
      dimensions: ['identity', 'activity', 'capability', 'reach', 'trust'],
    },
  },
};

export interface StatsCache {
  /** The newest run's body of `name` (parsed once per run), or the empty body before any run. */
  get(name: StatsName): Promise<Json>;
}

/** Each request asks the store only for the newest run id (a max over a few rows per run). */
export function createStatsCache(store: Store): StatsCache {
  const cached = new Map<StatsName, { runId: number; body: Json }>();
  return {
    async get(name) {
      const [newest] = await store.read(sqlFile('serve/run_stats_newest'), [name]);
      const runId = newest?.run_id == null ? null : Number(newest.run_id);
      if (runId === null) return emptyStats[name];
      const hit = cached.get(name);
      if (hit && hit.runId >= runId) return hit.body;
      const [row] = await store.read(sqlFile('serve/run_stats'), [name]);
      if (!row) return emptyStats[name];
      const entry = { runId: Number(row.run_id), body: JSON.parse(String(row.body)) as Json };
      cached.set(name, entry);
      return entry.body;
    },
  };
}

export function statsRoutes(router: Router<AuthState>, deps: { stats: StatsCache }): void {
  router.get('/v1/stats', async (ctx) => {
    ctx.set('Cache-Control', 'private, max-age=1800');
    ctx.body = await deps.stats.get('v2');
  });
}

// The legacy open endpoints (spec 4.11, 9.2): no key, free, `Cache-Control: public, max-age=300`.
// The two stats bodies come from the newest scoring run (sql/score/stats.sql) through the same
// in-memory cache as GET /v1/stats; identified and browse read the serving tables.
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import type { StatsCache } from './stats.ts';
import { grades, parseQuery, q } from './query.ts';

export const identifiedQuerySchema = z.object({ limit: q.int('limit', 1, 200, 50) });
export const browseQuerySchema = z.object({
  limit: q.int('limit', 1, 100, 50),
  offset: q.int('offset', 0, 1_000_000, 0),
  grade: q.oneOf('grade', grades),
  role: q.oneOf('role', ['agent', 'service', 'hybrid', 'wallet']),
  min_score: q.number('min_score', 0, 100),
});

// Errors are not cached: only a 2xx answer gets the public cache header.
async function publicCache(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.status >= 200 && ctx.status < 300) ctx.set('Cache-Control', 'public, max-age=300');
}

export function legacyRoutes(router: Router, deps: { store: Store; stats: StatsCache }): void {
  router.get('/api/v1/x402/stats', publicCache, async (ctx) => {
    ctx.body = await deps.stats.get('x402');
  });

  router.get('/api/v1/erc8004/stats', publicCache, async (ctx) => {
    ctx.body = await deps.stats.get('erc8004');
  });

  router.get('/api/v1/x402/identified', publicCache, async (ctx) => {
    const { limit } = parseQuery(identifiedQuerySchema, ctx.query);
    const rows = await deps.store.read(sqlFile('serve/legacy_identified'), [limit]);
    ctx.body = {
      total: Number(rows[0]?.total ?? 0),
      wallets: rows.filter((r) => r.wallet !== null).map((r) => ({
        ...wallet(r),
        erc8004_chain: String(r.erc8004_chain),
        erc8004_token_id: r.erc8004_token_id === null ? null : String(r.erc8004_token_id),
      })),
    };
  });

  router.get('/api/v1/x402/browse', publicCache, async (ctx) => {
    const query = parseQuery(browseQuerySchema, ctx.query);
    const rows = await deps.store.read(sqlFile('serve/legacy_browse'), [
      query.grade ?? null,
      query.role ?? null,
      query.min_score ?? null,
      query.limit,
      query.offset,
    ]);
    ctx.body = {
      total: Number(rows[0]?.total ?? 0),
      offset: query.offset,
      limit: query.limit,
      wallets: rows.filter((r) => r.wallet !== null).map(wallet),
    };
  });
}

function wallet(r: Row) {
  return {
    wallet: String(r.wallet),
    score: Number(r.score),
    grade: String(r.grade),
    role: String(r.role),
    total_txns: Number(r.total_txns),
    as_payer: Number(r.as_payer),
    as_payee: Number(r.as_payee),
    active_months: Number(r.active_months),
    name: (r.name as string | null) ?? null,
    first_seen: (r.first_seen as string | null) ?? null,
    last_seen: (r.last_seen as string | null) ?? null,
    volume_usdc: Number(r.volume_usdc),
    counterparties: Number(r.counterparties),
  };
}

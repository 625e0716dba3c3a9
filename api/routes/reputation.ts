// GET /v1/reputation/{address} (spec 4.1): a key fetch of the records the newest scoring run
// precomputed. Without `view` the answer is the 2.7 record; with `view=summary|full` it is the
// 2.8 variant (EVM addresses only; `full`, `min_grade` and `min_transactions` need a paid plan).
import type Router from '@koa/router';
import { z } from 'zod';
import { evmAddressPattern, parseAddress, solanaAddressPattern } from '../../pipeline/address.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import { ApiError } from '../errors.ts';
import { hasEntitlement } from '../plans.ts';
import { meter } from '../usage/meter.ts';
import { requireEntitlement } from '../middleware/entitlement.ts';
import { scoreStatus, withVerificationLevel, type VerificationLevel } from '../reputation/record.ts';
import { serveAddress } from '../reputation/lookup.ts';
import type { RecordCache } from '../reputation/cache.ts';
import { defaultPolicy, unscoredViewFacts, viewRecord, type Grade, type ViewFacts } from '../reputation/view.ts';
import { accountLimits } from '../usage/limits.ts';
import { chainName, grades, oneOf, parseQuery, q, single } from './query.ts';
import type { AuthState } from '../middleware/api-key.ts';

/** The path parameter: an EVM or Solana address, parsed (anything else is 400 invalid_address). */
export const addressParamsSchema = z.object({
  address: z
    .string()
    .transform((raw, ctx) => parseAddress(raw) ?? (ctx.addIssue({ code: 'custom', message: 'address must be an EVM address (0x + 40 hex) or a Solana base58 public key' }), z.NEVER))
    .meta({
      description: 'EVM address (0x + 40 hex, any case) or Solana public key (base58 of exactly 32 bytes: the pattern alone admits more)',
      anyOf: [{ pattern: evmAddressPattern.source }, { pattern: solanaAddressPattern.source }],
      examples: ['0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c'],
    }),
});

// Far above any address's count, and a safe integer.
const maxMinTransactions = 1_000_000_000;

export const reputationQuerySchema = z.object({
  chain: chainName(single('chain')).optional().meta({ description: 'only this chain in chains and agents, subject and score staying the address\'s (the view variant: that chain\'s activity; none where the address has no row on it, still 200)' }),
  view: oneOf('view', ['summary', 'full'], 'view must be summary or full').optional().meta({ description: 'answer with the 2.8 variant (EVM only); full needs a paid plan' }),
  min_grade: oneOf('min_grade', grades).optional().meta({ description: 'policy for decision.allow (paid; default C)' }),
  min_transactions: q.int('min_transactions', 0, maxMinTransactions).meta({ description: 'policy for decision.allow (paid; default 10)' }),
});

export function reputationRoutes(
  router: Router<AuthState>,
  deps: { store: Store; now?: () => Date; records?: RecordCache; staleAfterSeconds?: number; verificationLevel: (address: string) => VerificationLevel },
): void {
  router.get('/v1/reputation/:address', async (ctx) => {
    const params = addressParamsSchema.safeParse(ctx.params);
    if (!params.success) throw new ApiError('invalid_address', params.error.issues[0]!.message);
    const parsed = params.data.address;
    const { chain, view: requestedView, min_grade, min_transactions } = parseQuery(reputationQuerySchema, ctx.query);
    const plan = ctx.state.account.plan;
    const paid = hasEntitlement(plan, 'full_reputation');
    const variant = requestedView !== undefined || min_grade !== undefined || min_transactions !== undefined;
    const view = requestedView ?? 'summary';
    if (variant && parsed.family !== 'evm') throw new ApiError('invalid_address', 'the view variant takes EVM addresses only (0x + 40 hex)');
    if (view === 'full') requireEntitlement(ctx, 'full_view', 'view=full');
    if (min_grade !== undefined || min_transactions !== undefined) requireEntitlement(ctx, 'custom_policies', 'a custom policy (min_grade, min_transactions)');
    // One lookup is one call (spec 8), counted before the work.
    await meter(ctx, 1);

    const now = deps.now?.() ?? new Date();
    const served = await serveAddress(deps.store, parsed.address, { full: paid, now, chain, staleAfterSeconds: deps.staleAfterSeconds }, deps.records);
    // The plan's cache TTL (or the enterprise account's own), for both shapes; errors are not cached.
    const cacheTtlSeconds = accountLimits(ctx.state.account).cacheTtlSeconds;
    const level = deps.verificationLevel(parsed.address);
    if (!variant) {
      // The record's JSON bytes as built once (and cached), with the level of now.
      ctx.set(recordHeaders(cacheTtlSeconds));
      ctx.body = withVerificationLevel(served.json, level);
      return;
    }
    const scored = served.kind === 'record' ? served : null;
    // Spec 7.1: the variant answers 503 when the pipeline is behind, for an address still waiting
    // for its first score too (its newest run read apart; before any run there is nothing behind).
    const newestScoredAt = scored ? scored.run.scoredAt : ((await deps.store.read(sqlFile('serve/newest_run')))[0]?.scored_at as string | undefined);
    if (newestScoredAt !== undefined && scoreStatus(newestScoredAt, now, deps.staleAfterSeconds) === 'stale') {
      throw new ApiError('stale_data', `the newest scoring run is from ${newestScoredAt}; the pipeline is behind`);
    }
    const policy = { min_grade: min_grade ?? defaultPolicy.min_grade, min_transactions: min_transactions ?? defaultPolicy.min_transactions };
    ctx.set('Cache-Control', `private, max-age=${cacheTtlSeconds}`);
    const score = scored ? { value: scored.score.value!, grade: scored.score.grade as Grade } : { value: null, grade: null };
    const facts = scored ? (JSON.parse(scored.viewFacts) as ViewFacts) : unscoredViewFacts(chain);
    ctx.body = viewRecord(parsed.address, score, facts, scored?.run ?? null, {
      view,
      policy,
      now,
      tier: plan,
      cacheTtlSeconds,
      chain,
      verificationLevel: level,
    });
  });
}

/**
 * The headers of a 2.7 record answer besides the limits' (also sent by the hot path,
 * api/reputation/hot-lookup.ts). The Content-Type spelled out is what ctx.type = 'json' sets,
 * without its MIME table lookup per request.
 */
export function recordHeaders(cacheTtlSeconds: number): Record<string, string> {
  return { 'Cache-Control': `private, max-age=${cacheTtlSeconds}`, 'Content-Type': 'application/json; charset=utf-8' };
}

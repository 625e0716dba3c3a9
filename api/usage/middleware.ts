// The limits every authenticated /v1 route passes: the per-key rate limit, then the usage meter
// put on ctx.state for the route's `meter(ctx, calls)`.
import type { Middleware } from 'koa';
import type { AuthState } from '../middleware/api-key.ts';
import { ApiError } from '../errors.ts';
import { rateLimit, type RateLimiter } from './rate-limit.ts';
import { quotaHeaders, type UsageMeter, type UsageState } from './meter.ts';

export function planLimits(limiter: RateLimiter, usage: UsageMeter): Middleware<AuthState> {
  const limit = rateLimit(limiter);
  // Not async: see api/middleware/request-id.ts. The rate limit refuses by throwing before next().
  return (ctx, next) => {
    (ctx.state as UsageState).usage = usage;
    try {
      return limit(ctx, next);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'rate_limited') throw err;
      return refusedWithQuota(usage, ctx.state, err);
    }
  };
}

// A 429 carries the X-Quota-* headers, as a success does (spec 4.2), for plans with a quota: the
// calls used so far, this refused one not among them.
async function refusedWithQuota(usage: UsageMeter, state: AuthState, refusal: ApiError): Promise<never> {
  // The refusal is the answer: a quota that cannot be read now leaves the headers out, not a 500.
  const quota = await usage.quota(state.account).catch(() => null);
  if (quota) Object.assign(refusal.headers, quotaHeaders(quota));
  throw refusal;
}

// The limits every authenticated /v1 route passes: the per-key rate limit, then the usage meter
// put on ctx.state for the route's `meter(ctx, calls)`.
import type { Middleware, ParameterizedContext } from 'koa';
import type { AuthState } from '../middleware/api-key.ts';
import { ApiError } from '../errors.ts';
import { rateLimit, type RateLimiter } from './rate-limit.ts';
import { quotaHeaders, type UsageMeter, type UsageState } from './meter.ts';

/**
 * Routes that take the rate limit themselves, after reading their body: assess in test mode has no
 * rate limit, quota or billing (spec 4.2), which only its body says.
 */
const selfLimited = new Set(['/v1/assess']);

export function planLimits(limiter: RateLimiter, usage: UsageMeter): Middleware<AuthState> {
  const limit = rateLimit(limiter);
  // Not async: see api/middleware/request-id.ts. The rate limit refuses by throwing before next().
  return (ctx, next) => {
    const state = ctx.state as UsageState;
    state.usage = usage;
    // The router matches paths without case and with a trailing slash: so does this.
    if (selfLimited.has(ctx.path.toLowerCase().replace(/\/+$/, ''))) {
      state.takeRate = () => {
        try {
          return limit(ctx, () => Promise.resolve());
        } catch (err) {
          if (!(err instanceof ApiError) || err.code !== 'rate_limited') throw err;
          return refusedWithQuota(usage, ctx.state, err);
        }
      };
      return next();
    }
    try {
      return limit(ctx, next);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'rate_limited') throw err;
      return refusedWithQuota(usage, ctx.state, err);
    }
  };
}

/** For a self-limited route: counts this request against the key's rate limit now (429 past it). */
export async function takeRate(ctx: ParameterizedContext<AuthState>): Promise<void> {
  // Without one the limit was taken in front of the route already.
  await (ctx.state as UsageState).takeRate?.();
}

// A 429 carries the X-Quota-* headers, as a success does (spec 4.2), for plans with a quota: the
// calls used so far, this refused one not among them.
async function refusedWithQuota(usage: UsageMeter, state: AuthState, refusal: ApiError): Promise<never> {
  // The refusal is the answer: a quota that cannot be read now leaves the headers out, not a 500.
  const quota = await usage.quota(state.account).catch(() => null);
  if (quota) Object.assign(refusal.headers, quotaHeaders(quota));
  throw refusal;
}

// The limits every authenticated /v1 route passes: the per-key rate limit, then the usage meter
// put on ctx.state for the route's `meter(ctx, calls)`.
import type { Middleware } from 'koa';
import type { AuthState } from '../middleware/api-key.ts';
import { rateLimit, type RateLimiter } from './rate-limit.ts';
import type { UsageMeter, UsageState } from './meter.ts';

export function planLimits(limiter: RateLimiter, usage: UsageMeter): Middleware<AuthState> {
  const limit = rateLimit(limiter);
  // Not async: see api/middleware/request-id.ts.
  return (ctx, next) => {
    (ctx.state as UsageState).usage = usage;
    return limit(ctx, next);
  };
}

// Per-API-key rate limits (spec 8): a per-minute window at the plan's rate and a per-second
// window (free: 1 request per second); an enterprise account may have its own rates
// (api/usage/limits.ts). Fixed windows aligned to the clock's minute and second, in
// the owner's memory: a limit is about the last few seconds, so a restart forgetting it is fine.
//
// Headers on every /v1 response after authentication (success, errors, and 429 rate_limited):
// X-RateLimit-Limit (requests per minute), X-RateLimit-Remaining (left in this minute) and
// X-RateLimit-Reset (Unix time in seconds when the minute window resets). A request refused by the
// per-second window answers with that window's figures instead (limit = per-second rate,
// remaining 0, reset = the next second), so Remaining is never > 0 on a 429. Retry-After is the
// whole seconds until the refusing window resets (at least 1).
import type { Context, Middleware } from 'koa';
import { ApiError } from '../errors.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { accountLimits } from './limits.ts';

interface Windows {
  minute: number;
  minuteCount: number;
  second: number;
  secondCount: number;
}

export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetMs: number }
  | { allowed: false; limit: number; remaining: 0; resetMs: number; retryAfterSeconds: number; window: 'second' | 'minute' };

export class RateLimiter {
  private readonly byKey = new Map<string, Windows>();
  private sweptMinute = 0;

  constructor(private readonly now: () => Date) {}

  /** Counts one request of `keyId` if both windows allow it. */
  take(keyId: string, perMinute: number, perSecond: number): RateDecision {
    const t = this.now().getTime();
    const minute = Math.floor(t / 60_000);
    const second = Math.floor(t / 1_000);
    // Once a minute, forget the windows of past minutes: keyed by client address (./ip-rate-limit.ts)
    // the map would otherwise keep every address ever seen.
    if (minute !== this.sweptMinute) {
      this.sweptMinute = minute;
      for (const [key, old] of this.byKey) if (old.minute !== minute) this.byKey.delete(key);
    }
    let w = this.byKey.get(keyId);
    if (!w) this.byKey.set(keyId, (w = { minute, minuteCount: 0, second, secondCount: 0 }));
    // A clock moved backwards (tests do) starts fresh windows rather than mixing counts.
    if (w.minute !== minute) Object.assign(w, { minute, minuteCount: 0 });
    if (w.second !== second) Object.assign(w, { second, secondCount: 0 });
    const minuteReset = (minute + 1) * 60_000;
    const secondReset = (second + 1) * 1_000;
    if (w.minuteCount >= perMinute) {
      return { allowed: false, limit: perMinute, remaining: 0, resetMs: minuteReset, retryAfterSeconds: retryAfter(minuteReset, t), window: 'minute' };
    }
    if (w.secondCount >= perSecond) {
      return { allowed: false, limit: perSecond, remaining: 0, resetMs: secondReset, retryAfterSeconds: retryAfter(secondReset, t), window: 'second' };
    }
    w.minuteCount++;
    w.secondCount++;
    return { allowed: true, limit: perMinute, remaining: perMinute - w.minuteCount, resetMs: minuteReset };
  }
}

// Module level rather than a closure in take(): under tsx every closure made per call is also
// wrapped to keep its name, a cost on every request.
function retryAfter(resetMs: number, t: number): number {
  return Math.max(1, Math.ceil((resetMs - t) / 1_000));
}

export function rateLimit(limiter: RateLimiter): Middleware<AuthState> {
  // Not async: see api/middleware/request-id.ts.
  return (ctx, next) => {
    const { account } = ctx.state;
    const limits = accountLimits(account);
    const d = limiter.take(account.keyId, limits.ratePerMinute, limits.ratePerSecond);
    enforceRate(ctx, d, account.overrides ? 'this account' : `the ${account.plan} plan`);
    return next();
  };
}

/** Sets the X-RateLimit-* headers of `d`; throws 429 rate_limited with Retry-After when it refused. */
export function enforceRate(ctx: Context, d: RateDecision, whose: string): void {
  const headers = rateLimitHeaders(d);
  ctx.set(headers);
  if (!d.allowed) {
    const per = d.window === 'second' ? `${d.limit} per second` : `${d.limit} per minute`;
    throw new ApiError('rate_limited', `rate limit of ${whose} (${per}) reached; retry after ${d.retryAfterSeconds} s`, {}, {
      ...headers,
      'Retry-After': String(d.retryAfterSeconds),
    });
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(Math.ceil(d.resetMs / 1_000)),
  };
}

// Per-account quotas and usage metering (spec 8). Counting happens in the owner's memory and
// reaches the store in batches: every `flushIntervalMs` (default 5 s) and on close, as
// append-only rows of usage_counts (one per account and cycle per flush, summed when read).
// A crash loses at most the counts of one flush interval; a clean stop loses none.
//
// Routes call `await meter(ctx, calls)` BEFORE doing the work: a reputation lookup is 1 call, a
// batch is one call per address; /health, /v1/stats and the legacy endpoints never call it. A
// request the service then fails (a 5xx) is taken back by the error middleware (refundFailedRequest).
// Plans with a quota get X-Quota-Limit / X-Quota-Used / X-Quota-Reset (ISO-8601 end of the cycle;
// `never` for a quota without a period, which no plan has today) on success and on a 429
// (quota_exceeded, and rate_limited with the calls used so far: api/usage/middleware.ts); plans
// without a quota (enterprise) get none. Free stops at its included calls
// (it has no overage price); paid plans keep serving and the calls past the quota are overage.
// An enterprise account with its own included calls (api/usage/limits.ts) gets the headers for
// that quota, and the calls past it are overage by contract.
import type { ParameterizedContext } from 'koa';
import type { Store } from '../../pipeline/store/store.ts';
import type { Logger } from '../../pipeline/log.ts';
import { ApiError } from '../errors.ts';
import { planOf, quotaIsHardStop, type PlanName } from '../plans.ts';
import { accountLimits, type LimitOverrides } from './limits.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { cycleAt, type Cycle } from './cycle.ts';

export const defaultFlushIntervalMs = 5_000;

interface Counter {
  accountId: string;
  /** The cycle's bounds as epoch ms and its end as X-Quota-Reset, worked out once per cycle. */
  startMs: number;
  endMs: number;
  reset: string;
  /** Calls in this cycle: flushed ones plus those counted since. */
  used: number;
}

interface PendingCalls {
  counter: Counter;
  /** The account's plan and own included calls when the calls were last counted (what bills them). */
  plan: PlanName;
  includedCallsOverride: number | null;
  calls: number;
}

type MeteredAccount = { accountId: string; plan: PlanName; overrides?: LimitOverrides | null };

/** Calls to count on one account's counter, checked against its quota (`limit`, null = none). */
export interface Charge {
  counter: Counter;
  account: MeteredAccount;
  calls: number;
  limit: number | null;
}

/** Whether the charge passes the quota of a plan that stops there (free); other plans count overage. */
function refuses({ counter, account, calls, limit }: Charge): boolean {
  return limit !== null && quotaIsHardStop(planOf(account.plan)) && counter.used + calls > limit;
}

export interface QuotaState {
  limit: number;
  used: number;
  reset: string;
}

export interface UsageMeterOptions {
  store: Store;
  now?: () => Date;
  log?: Logger;
  /** 0 = no timer (flush only when asked and on close). */
  flushIntervalMs?: number;
}

export class UsageMeter {
  readonly now: () => Date;
  private readonly store: Store;
  private readonly log?: Logger;
  private readonly createdAt = new Map<string, Promise<Date>>();
  private readonly counters = new Map<string, Promise<Counter>>();
  /**
   * Each account's counter of the cycle it was last counted in. While the clock stays inside that
   * cycle a call is counted without working out the cycle again (calendar arithmetic) or awaiting.
   */
  private readonly current = new Map<string, Counter>();
  /** Keyed by counter: one counter per (account, cycle). */
  private pending = new Map<Counter, PendingCalls>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: UsageMeterOptions) {
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    this.log = options.log;
    const interval = options.flushIntervalMs ?? defaultFlushIntervalMs;
    if (interval > 0) {
      this.timer = setInterval(() => {
        this.flush().catch((err: unknown) => this.log?.error('usage flush failed; counts kept for the next one', { error: String(err) }));
      }, interval);
      this.timer.unref();
    }
  }

  /**
   * Counts `calls` for the account behind the request, or refuses with 429 quota_exceeded when
   * its plan stops at the quota and the calls do not fit (a batch is refused whole). Returns the
   * quota after counting, or null for plans without one.
   */
  async count(account: MeteredAccount, calls: number): Promise<{ charge: Charge; quota: QuotaState | null }> {
    if (this.closed) throw new ApiError('unavailable', 'the server is shutting down');
    const now = this.now();
    const counter = this.currentCounter(account.accountId, now) ?? (await this.loadCurrentCounter(account.accountId, now));
    // From here to the increment nothing awaits, so concurrent requests cannot both take the last call.
    const charge: Charge = { counter, account, calls, limit: accountLimits(account).includedCalls };
    if (refuses(charge)) {
      const quota: QuotaState = { limit: charge.limit!, used: counter.used, reset: counter.reset };
      throw new ApiError(
        'quota_exceeded',
        `the ${account.plan} plan includes ${quota.limit} calls per billing cycle and ${counter.used} are used; the quota resets at ${quota.reset}. Do not retry before then, or upgrade.`,
        {},
        quotaHeaders(quota),
      );
    }
    return { charge, quota: this.commit(charge) };
  }

  /**
   * count() for a caller that must not await (api/reputation/hot-lookup.ts): the charge of
   * `calls` as it would be accepted now, for commit() before anything else runs; undefined when
   * count() would have to load the cycle's counter or would refuse, so the caller leaves it to count().
   */
  prepare(account: MeteredAccount, calls: number): Charge | undefined {
    if (this.closed) return undefined;
    const counter = this.currentCounter(account.accountId, this.now());
    if (counter === undefined) return undefined;
    const charge: Charge = { counter, account, calls, limit: accountLimits(account).includedCalls };
    return refuses(charge) ? undefined : charge;
  }

  /**
   * The account's quota as it stands, without counting anything (the X-Quota-* headers of a
   * request refused before it was counted: 429 rate_limited); null for plans without one.
   */
  async quota(account: MeteredAccount): Promise<QuotaState | null> {
    const limit = accountLimits(account).includedCalls;
    if (limit === null) return null;
    const now = this.now();
    const counter = this.currentCounter(account.accountId, now) ?? (await this.loadCurrentCounter(account.accountId, now));
    return { limit, used: counter.used, reset: counter.reset };
  }

  /** Counts an accepted charge; the quota after it, or null for plans without one. */
  commit({ counter, account, calls, limit }: Charge): QuotaState | null {
    counter.used += calls;
    const pending = this.pending.get(counter);
    const includedCallsOverride = account.overrides?.includedCalls ?? null;
    if (pending) {
      pending.calls += calls;
      pending.plan = account.plan;
      pending.includedCallsOverride = includedCallsOverride;
    } else this.pending.set(counter, { counter, plan: account.plan, includedCallsOverride, calls });
    return limit === null ? null : { limit, used: counter.used, reset: counter.reset };
  }

  /**
   * Takes back an accepted charge: the request it paid for failed on the service's side (a 5xx).
   * The same counter, so a charge taken back after its cycle ended still leaves that cycle; a
   * flush in between writes the calls taken back as a negative row (usage_counts is summed).
   */
  refund({ counter, account, calls }: Charge): void {
    this.commit({ counter, account, calls: -calls, limit: null });
  }

  /** The account's counter when the clock is still inside the cycle it was last counted in. */
  private currentCounter(accountId: string, now: Date): Counter | undefined {
    const counter = this.current.get(accountId);
    // A clock moved backwards (tests do) falls back to the lookup as well.
    return counter !== undefined && now.getTime() >= counter.startMs && now.getTime() < counter.endMs ? counter : undefined;
  }

  private async loadCurrentCounter(accountId: string, now: Date): Promise<Counter> {
    const counter = await this.counter(accountId, cycleAt(await this.accountCreatedAt(accountId), now));
    this.current.set(accountId, counter);
    return counter;
  }

  /** Writes the counts gathered since the last flush; resolves once they committed. */
  flush(): Promise<void> {
    // One flush at a time, in order: a count is in exactly one of `pending` or a running flush.
    const run = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        const n = 6;
        const values = batch.map((_, i) => `($${i * n + 1}, $${i * n + 2}, make_timestamp($${i * n + 3}::BIGINT * 1000), make_timestamp($${i * n + 4}::BIGINT * 1000), $${i * n + 5}::BIGINT, $${i * n + 6}::BIGINT, utc_now())`);
        const params = batch.flatMap((p) => [p.counter.accountId, p.plan, String(p.counter.startMs), String(p.counter.endMs), String(p.calls), p.includedCallsOverride === null ? null : String(p.includedCallsOverride)]);
        await this.store.write((tx) =>
          tx.run(`INSERT INTO usage_counts (account_id, plan, cycle_start, cycle_end, calls, included_calls_override, flushed_at) VALUES ${values.join(', ')}`, params),
        );
      } catch (err) {
        // Put the counts back (merged with anything counted meanwhile) for the next flush.
        for (const p of batch) {
          const current = this.pending.get(p.counter);
          if (current) current.calls += p.calls;
          else this.pending.set(p.counter, p);
        }
        throw err;
      }
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Stops the timer and flushes what is left; later counts are refused. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.closed = true;
    await this.flush();
  }

  private accountCreatedAt(accountId: string): Promise<Date> {
    let p = this.createdAt.get(accountId);
    if (!p) {
      p = this.store.read(`SELECT epoch_ms(created_at) AS ms FROM accounts WHERE id = $1 ORDER BY created_at LIMIT 1`, [accountId]).then((rows) => {
        if (rows.length === 0) throw new Error(`account ${accountId} is not in the store`);
        return new Date(Number(rows[0]!.ms));
      });
      this.createdAt.set(accountId, p);
      p.catch(() => this.createdAt.delete(accountId));
    }
    return p;
  }

  private counter(accountId: string, cycle: Cycle): Promise<Counter> {
    const key = counterKey(accountId, cycle);
    let p = this.counters.get(key);
    if (!p) {
      // Loaded once per (account, cycle), before anything of that cycle is counted here, so the
      // store's sum is all there is.
      p = storedCalls(this.store, accountId, cycle).then((used) => ({
        accountId,
        startMs: cycle.start.getTime(),
        endMs: cycle.end.getTime(),
        reset: cycle.end.toISOString(),
        used,
      }));
      this.counters.set(key, p);
      p.catch(() => this.counters.delete(key));
    }
    return p;
  }
}

function counterKey(accountId: string, cycle: Cycle): string {
  return `${accountId}|${cycle.start.getTime()}`;
}

async function storedCalls(store: Store, accountId: string, cycle: Cycle): Promise<number> {
  const [row] = await store.read(
    `SELECT coalesce(sum(calls), 0)::BIGINT AS calls FROM usage_counts WHERE account_id = $1 AND epoch_ms(cycle_start) = $2::BIGINT`,
    [accountId, String(cycle.start.getTime())],
  );
  return Number(row?.calls ?? 0);
}

export function quotaHeaders(quota: QuotaState): Record<string, string> {
  return { 'X-Quota-Limit': String(quota.limit), 'X-Quota-Used': String(quota.used), 'X-Quota-Reset': quota.reset };
}

export interface UsageState extends AuthState {
  usage?: UsageMeter;
  /** What meter() counted for this request, for refundFailedRequest(). */
  charge?: Charge;
  /** A self-limited route's rate limit, taken when the route decides (api/usage/middleware.ts). */
  takeRate?: () => unknown;
}

/**
 * Meters `calls` for the request's account before the route does its work: throws 429
 * quota_exceeded when a hard quota would be passed, and sets the X-Quota-* headers.
 */
export async function meter(ctx: ParameterizedContext<AuthState>, calls: number): Promise<void> {
  const state = ctx.state as UsageState;
  if (!state.usage) throw new Error('meter() needs the usage middleware (api/usage/middleware.ts) in front of the route');
  const { charge, quota } = await state.usage.count(ctx.state.account, calls);
  state.charge = charge;
  if (quota) ctx.set(quotaHeaders(quota));
}

/**
 * A request the service failed (a 5xx: stale_data, unavailable, a fault) after meter() counted it
 * is not billed: its calls are taken back, and its answer carries no X-Quota-* headers (spec 4.2:
 * they go with a success or a 429). Called by the error middleware.
 */
export function refundFailedRequest(ctx: ParameterizedContext, status: number): void {
  const state = ctx.state as UsageState;
  if (status < 500 || !state.charge || !state.usage) return;
  state.usage.refund(state.charge);
  state.charge = undefined;
  for (const header of ['X-Quota-Limit', 'X-Quota-Used', 'X-Quota-Reset']) ctx.remove(header);
}

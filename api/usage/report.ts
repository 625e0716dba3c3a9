// `reputation usage --account ID` (admin operation usage.show): the account's billing cycles with
// the calls counted, the included calls, and the overage. The current cycle is `open` (its overage
// so far); an ended cycle is `closed` and its overage is what the cycle end bills. A cycle is
// billed by the plan and, on enterprise, the account's own included calls (api/usage/limits.ts)
// in force when its calls were last counted; the open cycle by those in force now.
import type { Store } from '../../pipeline/store/store.ts';
import { isPlanName, planOf, type PlanName } from '../plans.ts';
import { accountLimits, noOverrides, overrideColumns, overridesOf, type LimitOverrides } from './limits.ts';
import { cycleAt } from './cycle.ts';

export interface CycleUsage {
  cycle_start: string;
  cycle_end: string;
  status: 'open' | 'closed';
  plan: PlanName;
  calls: number;
  /** null: unlimited. */
  included: number | null;
  overage_calls: number;
  /** USD; null when billed by contract (enterprise). */
  overage_usd: number | null;
}

export interface UsageReport {
  account_id: string;
  plan: PlanName;
  status: string;
  current: CycleUsage;
  /** Ended cycles with counted calls, newest first. */
  past: CycleUsage[];
}

export class UnknownAccountError extends Error {
  override name = 'UnknownAccountError';
}

/** `included`: the account's included calls when it has its own (default: the plan's). */
export function cycleUsage(plan: PlanName, start: Date, end: Date, calls: number, now: Date, included = planOf(plan).includedCalls): CycleUsage {
  const p = planOf(plan);
  const overageCalls = included === null ? 0 : Math.max(0, calls - included);
  // Prices are whole multiples of $0.0001: count in those units to keep the sum exact.
  const overageUsd = p.overageByContract ? null : p.overagePerCallUsd === null ? 0 : (overageCalls * Math.round(p.overagePerCallUsd * 10_000)) / 10_000;
  return {
    cycle_start: start.toISOString(),
    cycle_end: end.toISOString(),
    status: end.getTime() <= now.getTime() ? 'closed' : 'open',
    plan,
    calls,
    included,
    overage_calls: overageCalls,
    overage_usd: overageUsd,
  };
}

export async function usageReport(store: Store, accountId: string, now: Date): Promise<UsageReport> {
  const [account] = await store.read(
    `SELECT a.plan, a.status, epoch_ms(a.created_at) AS created_ms, ${overrideColumns} FROM accounts a WHERE a.id = $1 ORDER BY a.created_at LIMIT 1`,
    [accountId],
  );
  if (!account) throw new UnknownAccountError(`no account ${accountId}`);
  const plan = String(account.plan);
  if (!isPlanName(plan)) throw new Error(`account ${accountId} has an unknown plan ${plan}`);
  const rows = await store.read(
    `SELECT epoch_ms(cycle_start) AS start_ms, epoch_ms(cycle_end) AS end_ms, sum(calls)::BIGINT AS calls, arg_max(plan, flushed_at) AS plan,
            arg_max_null(included_calls_override, flushed_at) AS included_calls_override
       FROM usage_counts WHERE account_id = $1 GROUP BY cycle_start, cycle_end ORDER BY cycle_start DESC`,
    [accountId],
  );
  const current = cycleAt(new Date(Number(account.created_ms)), now);
  const usage = (cyclePlan: PlanName, overrides: LimitOverrides | null, start: Date, end: Date, calls: number) =>
    cycleUsage(cyclePlan, start, end, calls, now, accountLimits({ plan: cyclePlan, overrides }).includedCalls);
  const row = (r: (typeof rows)[number]) => {
    const rowPlan = String(r.plan);
    const included = r.included_calls_override === null ? null : Number(r.included_calls_override);
    return usage(isPlanName(rowPlan) ? rowPlan : plan, { ...noOverrides, includedCalls: included }, new Date(Number(r.start_ms)), new Date(Number(r.end_ms)), Number(r.calls));
  };
  const currentRow = rows.find((r) => Number(r.start_ms) === current.start.getTime());
  return {
    account_id: accountId,
    plan,
    status: String(account.status),
    // The current cycle is billed at the account's plan now.
    current: usage(plan, overridesOf(account), current.start, current.end, currentRow ? Number(currentRow.calls) : 0),
    past: rows.filter((r) => Number(r.start_ms) < current.start.getTime()).map(row),
  };
}

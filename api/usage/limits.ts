// The limits an account is held to: its plan's numbers (api/plans.ts) with the account's own
// overrides on top. Spec 8 gives enterprise a "custom" rate limit, included calls by contract and a
// "configurable" cache TTL, so an enterprise account (the `custom_limits` entitlement) may carry
// its own values in the accounts table (migration 010); NULL there is the plan's value.
//
// The overrides travel with the key in the in-memory index (api/accounts.ts), so the rate limiter,
// the usage meter and the reputation route read them without a query; `reputation accounts limits`
// writes the row and then updates the index of the running server.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { hasEntitlement, planOf, type PlanName } from '../plans.ts';

export interface LimitOverrides {
  ratePerMinute: number | null;
  ratePerSecond: number | null;
  /** Calls per billing cycle; on enterprise the calls past it are overage by contract, never refused. */
  includedCalls: number | null;
  cacheTtlSeconds: number | null;
}

export type LimitName = keyof LimitOverrides;
export const limitNames: readonly LimitName[] = ['ratePerMinute', 'ratePerSecond', 'includedCalls', 'cacheTtlSeconds'];

/** Column of each override in the accounts table. */
const columns: Record<LimitName, string> = {
  ratePerMinute: 'rate_per_minute',
  ratePerSecond: 'rate_per_second',
  includedCalls: 'included_calls',
  cacheTtlSeconds: 'cache_ttl_seconds',
};

/** Bounds of a value an operator may set (also what the CLI checks before anything opens). */
export const limitBounds: Record<LimitName, { min: number; max: number }> = {
  ratePerMinute: { min: 1, max: 1_000_000 },
  ratePerSecond: { min: 1, max: 100_000 },
  includedCalls: { min: 0, max: 1_000_000_000_000 },
  cacheTtlSeconds: { min: 0, max: 86_400 },
};

export const noOverrides: LimitOverrides = { ratePerMinute: null, ratePerSecond: null, includedCalls: null, cacheTtlSeconds: null };

export type Limits = { [K in LimitName]: K extends 'includedCalls' ? number | null : number };

/** What the account is held to: each override where set, else the plan's value. */
export function accountLimits(account: { plan: PlanName; overrides?: LimitOverrides | null }): Limits {
  const plan = planOf(account.plan);
  // Overrides count only while the plan allows them (a row kept after a change of plan does not).
  const o = account.overrides && hasEntitlement(account.plan, 'custom_limits') ? account.overrides : noOverrides;
  return {
    ratePerMinute: o.ratePerMinute ?? plan.ratePerMinute,
    ratePerSecond: o.ratePerSecond ?? plan.ratePerSecond,
    includedCalls: o.includedCalls ?? plan.includedCalls,
    cacheTtlSeconds: o.cacheTtlSeconds ?? plan.cacheTtlSeconds,
  };
}

/** The overrides of an accounts row selected with `overrideColumns`; null when none is set. */
export function overridesOf(row: Row): LimitOverrides | null {
  const value = (name: LimitName) => (row[columns[name]] === null || row[columns[name]] === undefined ? null : Number(row[columns[name]]));
  return activeOverrides({ ratePerMinute: value('ratePerMinute'), ratePerSecond: value('ratePerSecond'), includedCalls: value('includedCalls'), cacheTtlSeconds: value('cacheTtlSeconds') });
}

/** `overrides`, or null when none of them is set (the account is held to its plan). */
export function activeOverrides(overrides: LimitOverrides): LimitOverrides | null {
  return limitNames.some((name) => overrides[name] !== null) ? overrides : null;
}

/** `a.rate_per_minute, a.rate_per_second, ...` for a SELECT over accounts aliased `a`. */
export const overrideColumns = limitNames.map((name) => `a.${columns[name]}`).join(', ');

export class LimitsRefusedError extends Error {
  override name = 'LimitsRefusedError';
}

export interface AccountLimitsReport {
  account_id: string;
  plan: PlanName;
  /** The account's own values; null = the plan's. */
  overrides: LimitOverrides;
  /** What is in force. */
  limits: Limits;
}

/**
 * Sets the overrides given in `change` (a number sets one, null returns it to the plan's value,
 * absent leaves it) and answers the account's overrides and limits; with an empty change, only
 * reads them. Setting a value needs the custom_limits entitlement (enterprise).
 */
export async function changeAccountLimits(store: Store, accountId: string, change: Partial<LimitOverrides>): Promise<AccountLimitsReport> {
  const names = limitNames.filter((name) => change[name] !== undefined);
  for (const name of names) {
    const value = change[name];
    const { min, max } = limitBounds[name];
    if (value !== null && (!Number.isInteger(value) || value! < min || value! > max)) throw new LimitsRefusedError(`${name} must be a whole number from ${min} to ${max}`);
  }
  const read = async (all: (sql: string, params: DuckDBValue[]) => Promise<Row[]>) => {
    const [row] = await all(`SELECT a.plan, ${overrideColumns} FROM accounts a WHERE a.id = $1 ORDER BY a.created_at LIMIT 1`, [accountId]);
    if (!row) throw new LimitsRefusedError(`no account ${accountId}`);
    return row;
  };
  const report = (row: Row): AccountLimitsReport => {
    const plan = row.plan as PlanName;
    const overrides = overridesOf(row) ?? noOverrides;
    return { account_id: accountId, plan, overrides, limits: accountLimits({ plan, overrides }) };
  };
  if (names.length === 0) return report(await read((sql, params) => store.read(sql, params)));
  return store.write(async (tx) => {
    const row = await read((sql, params) => tx.all(sql, params));
    const plan = row.plan as PlanName;
    if (names.some((name) => change[name] !== null) && !hasEntitlement(plan, 'custom_limits')) {
      throw new LimitsRefusedError(`custom limits are an enterprise feature; account ${accountId} has plan ${plan}`);
    }
    const sets = names.map((name, i) => `${columns[name]} = $${i + 2}::BIGINT`);
    await tx.run(`UPDATE accounts SET ${sets.join(', ')} WHERE id = $1`, [accountId, ...names.map((name) => (change[name] === null ? null : String(change[name])))]);
    return report(await read((sql, params) => tx.all(sql, params)));
  });
}

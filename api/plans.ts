// The plan catalogue (spec sections 5 and 8) as data: price, included calls per billing cycle,
// overage price, rate limits, cache TTL and entitlements of every plan an account can hold. How
// the spec's two plan descriptions were reconciled (Pro, the free plan's 50 vs 5,000 calls, who
// gets custom policies) is recorded in docs/decisions.md ("One plan catalogue").
export const planNames = ['free', 'starter', 'growth', 'scale', 'pro', 'enterprise'] as const;
export type PlanName = (typeof planNames)[number];

export function isPlanName(value: string): value is PlanName {
  return (planNames as readonly string[]).includes(value);
}

/** What a plan may do; an endpoint or parameter whose entitlement is missing answers 402. */
export const entitlementNames = [
  /** The complete 2.7 record (confidence, dimensions, identity, activity, ...); without it, the redacted one. */
  'full_reputation',
  /** `view=full` of the 2.8 variant, with its decision. */
  'full_view',
  /** Caller-chosen policies: `min_grade` / `min_transactions` on lookups, `policy` on assess. */
  'custom_policies',
  /** POST /v1/reputation:batch, up to `batchMaxAddresses` per request. */
  'batch',
  'assess',
  /** POST /v1/sessions and polling them. */
  'sessions',
  /** POST/GET/DELETE /v1/credentials (wallet capture, POST /v1/credentials/wallets, is open to every plan). */
  'credentials',
  'ip_allowlists',
  'signed_responses',
  /** Per-account overrides of the rate limits, included calls and cache TTL (api/usage/limits.ts). */
  'custom_limits',
] as const;
export type Entitlement = (typeof entitlementNames)[number];

export interface Plan {
  name: PlanName;
  /** Monthly price in USD; null = custom (by contract). */
  monthlyPriceUsd: number | null;
  /** Calls included per billing cycle; null = unlimited (no quota, no X-Quota-* headers). */
  includedCalls: number | null;
  /** USD per call past the included calls; null = no overage: the quota is a hard stop (429 quota_exceeded). */
  overagePerCallUsd: number | null;
  /** True when overage is billed by contract (enterprise): no price here, never a hard stop. */
  overageByContract: boolean;
  /** Requests per minute per API key (spec 8: "custom" for enterprise: our default, see decisions; an account may override it). */
  ratePerMinute: number;
  /** Requests per second per API key (the burst window; free's 1/s is from spec 8). */
  ratePerSecond: number;
  /** Cache TTL of served records in seconds (enterprise: "configurable"; this is its default). */
  cacheTtlSeconds: number;
  /** Addresses per batch request (0: no batch). */
  batchMaxAddresses: number;
  entitlements: ReadonlySet<Entitlement>;
}

const paidEntitlements: Entitlement[] = ['full_reputation', 'full_view', 'custom_policies', 'batch', 'assess', 'sessions', 'credentials'];

const growth: Plan = {
  name: 'growth',
  monthlyPriceUsd: 199,
  includedCalls: 500_000,
  overagePerCallUsd: 0.0004,
  overageByContract: false,
  ratePerMinute: 600,
  ratePerSecond: 20,
  cacheTtlSeconds: 60,
  batchMaxAddresses: 100,
  entitlements: new Set(paidEntitlements),
};

export const plans: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: 'free',
    monthlyPriceUsd: 0,
    includedCalls: 5_000,
    overagePerCallUsd: null,
    overageByContract: false,
    ratePerMinute: 60,
    ratePerSecond: 1,
    cacheTtlSeconds: 300,
    batchMaxAddresses: 0,
    entitlements: new Set<Entitlement>(),
  },
  starter: {
    name: 'starter',
    monthlyPriceUsd: 49,
    includedCalls: 100_000,
    overagePerCallUsd: 0.0005,
    overageByContract: false,
    ratePerMinute: 300,
    ratePerSecond: 10,
    cacheTtlSeconds: 60,
    batchMaxAddresses: 100,
    entitlements: new Set(paidEntitlements),
  },
  growth,
  // Section 5's paid self-serve tier; section 8 has no Pro column, so Pro carries Growth's numbers.
  pro: { ...growth, name: 'pro' },
  scale: {
    name: 'scale',
    monthlyPriceUsd: 999,
    includedCalls: 5_000_000,
    overagePerCallUsd: 0.0003,
    overageByContract: false,
    ratePerMinute: 1_200,
    ratePerSecond: 40,
    cacheTtlSeconds: 60,
    batchMaxAddresses: 100,
    entitlements: new Set(paidEntitlements),
  },
  enterprise: {
    name: 'enterprise',
    monthlyPriceUsd: null,
    includedCalls: null,
    overagePerCallUsd: null,
    overageByContract: true,
    ratePerMinute: 6_000,
    ratePerSecond: 100,
    cacheTtlSeconds: 60,
    batchMaxAddresses: 100,
    entitlements: new Set<Entitlement>([...paidEntitlements, 'ip_allowlists', 'signed_responses', 'custom_limits']),
  },
};

export function planOf(name: PlanName): Plan {
  return plans[name];
}

export function hasEntitlement(plan: PlanName, entitlement: Entitlement): boolean {
  return plans[plan].entitlements.has(entitlement);
}

/** True when the quota stops serving (429 quota_exceeded) instead of billing overage. */
export function quotaIsHardStop(plan: Plan): boolean {
  return plan.includedCalls !== null && plan.overagePerCallUsd === null && !plan.overageByContract;
}

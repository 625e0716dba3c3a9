// The plan names accounts can hold. The full catalogue (entitlements, included calls, rate
// limits, cache TTLs) arrives with the public API issue; for now a plan only decides whether
// reputation records are redacted (the free tier) or complete.
export const planNames = ['free', 'starter', 'growth', 'scale', 'pro', 'enterprise'] as const;
export type PlanName = (typeof planNames)[number];

export function isPlanName(value: string): value is PlanName {
  return (planNames as readonly string[]).includes(value);
}

export function seesFullReputation(plan: PlanName): boolean {
  return plan !== 'free';
}

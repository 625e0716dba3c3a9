// Plan gating (spec 5.5): an endpoint or parameter the account's plan lacks answers 402
// payment_required. Routes call `requireEntitlement(ctx, ...)` for a parameter, or mount
// `entitled(...)` in front of a whole endpoint.
import type { Middleware, ParameterizedContext } from 'koa';
import { ApiError } from '../errors.ts';
import { hasEntitlement, type Entitlement, type PlanName } from '../plans.ts';
import type { AuthState } from './api-key.ts';

export function requireEntitlement(ctx: ParameterizedContext<AuthState>, entitlement: Entitlement, what?: string): void {
  requirePlanEntitlement(ctx.state.account.plan, entitlement, what);
}

/** requireEntitlement() for a caller without a Koa context (api/routes/hot-assess.ts). */
export function requirePlanEntitlement(plan: PlanName, entitlement: Entitlement, what: string = entitlement.replaceAll('_', ' ')): void {
  if (!hasEntitlement(plan, entitlement)) {
    throw new ApiError('payment_required', `${what} is not included in the ${plan} plan; upgrade to use it`, { plan, entitlement });
  }
}

export function entitled(entitlement: Entitlement, what?: string): Middleware<AuthState> {
  return async (ctx, next) => {
    requireEntitlement(ctx, entitlement, what);
    await next();
  };
}

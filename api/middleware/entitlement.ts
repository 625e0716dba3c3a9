// Plan gating (spec 5.5): an endpoint or parameter the account's plan lacks answers 402
// payment_required. Routes call `requireEntitlement(ctx, ...)` for a parameter, or mount
// `entitled(...)` in front of a whole endpoint.
import type { Middleware, ParameterizedContext } from 'koa';
import { ApiError } from '../errors.ts';
import { hasEntitlement, type Entitlement } from '../plans.ts';
import type { AuthState } from './api-key.ts';

export function requireEntitlement(ctx: ParameterizedContext<AuthState>, entitlement: Entitlement, what: string = entitlement.replaceAll('_', ' ')): void {
  const plan = ctx.state.account.plan;
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

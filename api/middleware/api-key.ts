// X-API-Key authentication for /v1 routes. Missing or unknown keys get 401 signup_required with
// a signup_url (spec 5.1); a cancelled account gets 403 account_cancelled.
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';
import type { ApiKeyIndex, KeyOwner } from '../accounts.ts';

export interface AuthState {
  account: KeyOwner;
}

export function requireApiKey(index: ApiKeyIndex, signupUrl: string): Middleware<AuthState> {
  // Not async: see api/middleware/request-id.ts.
  return (ctx, next) => {
    const result = index.verify(ctx.get('X-API-Key') || undefined);
    if (!result.valid) {
      const message = result.code === 'missing' ? 'an X-API-Key header is required' : 'the API key is not valid';
      throw new ApiError('signup_required', `${message}; sign up for a key`, { signup_url: signupUrl });
    }
    if (result.owner.status === 'cancelled') throw new ApiError('account_cancelled', 'this account has been cancelled');
    ctx.state.account = result.owner;
    return next();
  };
}

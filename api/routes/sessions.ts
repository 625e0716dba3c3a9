// Verification sessions (spec 4.3, 4.4): a merchant creates one for an agent that has neither wallet
// nor credential; the agent polls it with its poll secret until the operator token comes, once.
//
// Creating is behind the API key (plans with `sessions`). Polling is keyless and mounted outside
// the key layer (api/app.ts): the agent that polls holds the poll secret, never the merchant's
// key. It is limited to 30 polls a minute per client address, counted before the secret is
// checked, and a wrong secret and an unknown session get one answer (docs/decisions.md).
import type Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { requireEntitlement } from '../middleware/entitlement.ts';
import { jsonBody } from '../middleware/json-body.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { enforceRate, type RateLimiter } from '../usage/rate-limit.ts';
import { clientKey } from '../usage/ip-rate-limit.ts';
import { parseBody } from './body.ts';
import type { IdentityService } from '../../identity/service.ts';
import { pollSecretHeader } from '../../identity/guidance.ts';

/** Spec 8: session polls per minute per client address. */
export const pollsPerMinute = 30;

// Fields a caller might send that the spec refuses by name (4.3): the page never redirects to an
// address a caller chose, and a session carries no payment details.
const refusedFields: Record<string, string> = {
  return_url: 'is not accepted: the verify page never sends the user to an address chosen by the caller',
  success_url: 'is not accepted: the verify page never sends the user to an address chosen by the caller',
  cancel_url: 'is not accepted: the verify page never sends the user to an address chosen by the caller',
  payment_method: 'is not accepted: a verification session carries no payment details',
  payment_method_types: 'is not accepted: a verification session carries no payment details',
  payment_method_options: 'is not accepted: a verification session carries no payment details',
  metadata: 'is not accepted: a verification session carries no payment or vendor metadata',
};

export const createSessionSchema = z
  .object({
    context: z.string({ message: 'context must be a string' }).max(500, 'context is at most 500 characters').optional().meta({
      description: 'A free-form label of yours (e.g. the request the agent was making); at most 500 characters. Not shown to the user.',
    }),
    product_name: z.string({ message: 'product_name must be a string' }).max(200, 'product_name is at most 200 characters').optional().meta({
      description: 'Shown on the verify page as what the verification is for; at most 200 characters.',
    }),
  })
  .strict();

export const sessionParamsSchema = z.object({
  session_id: z.string().meta({ description: 'The session_id (sess_…) of the create answer.' }),
});

export const pollHeadersSchema = z.object({
  [pollSecretHeader]: z.string().min(1).meta({ description: 'The poll_secret of the create answer (pls_…).' }),
});

export function createSessionRoutes(router: Router<AuthState>, deps: { identity: IdentityService }): void {
  router.post('/v1/sessions', jsonBody('32kb', { optional: true }), async (ctx) => {
    requireEntitlement(ctx, 'sessions', 'verification sessions');
    const body = (ctx.request as { body?: unknown }).body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const refused = Object.keys(body).find((key) => Object.hasOwn(refusedFields, key));
      if (refused) throw new ApiError('bad_request', `${refused} ${refusedFields[refused]}`);
    }
    const { context, product_name } = parseBody(createSessionSchema, body);
    const answer = await deps.identity.createAgentSession(ctx.state.account.accountId, { context: context ?? null, productName: product_name ?? null });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = answer;
  });
}

export function pollSessionRoutes(router: Router, deps: { identity: IdentityService; limiter: RateLimiter }): void {
  router.get('/v1/sessions/:session_id', async (ctx) => {
    refuseHead(ctx.method, 'would spend the one-time operator token');
    const client = clientKey(ctx.ip);
    enforceRate(ctx, deps.limiter.take(`poll:${client}`, pollsPerMinute, pollsPerMinute), `session polling from this client address (${client})`);
    const headers = pollHeadersSchema.safeParse({ [pollSecretHeader]: ctx.get(pollSecretHeader) || undefined });
    if (!headers.success) throw new ApiError('unauthorized', `the ${pollSecretHeader} header is required: send the poll_secret of the create answer`);
    const polled = await deps.identity.poll(ctx.params.session_id!, headers.data[pollSecretHeader]);
    if (!polled) throw new ApiError('unauthorized', `no session with this id accepts this ${pollSecretHeader}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = polled.body;
  });
}

/**
 * Routes registered for GET answer HEAD too (koa-router), and HEAD runs the handler: where a GET
 * changes something (delivers a token, starts a vendor session) HEAD is refused, not run.
 */
export function refuseHead(method: string, why: string): void {
  if (method === 'HEAD') throw new ApiError('method_not_allowed', `HEAD ${why}: use GET`, {}, { Allow: 'GET' });
}

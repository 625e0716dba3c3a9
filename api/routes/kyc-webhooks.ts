// POST /webhooks/stripe: Stripe Identity's verification results. Keyless (Stripe holds no key of
// ours) and mounted outside the /v1 key layer (api/app.ts); the signature is the credential. The raw
// bytes are verified (timestamped HMAC, replay window) before anything is parsed; a bad signature
// is 400 and changes nothing. Every delivery that verifies is acknowledged with 200, also one that
// changes nothing (a redelivery, a replay, a result for a finished or stale attempt): a non-2xx
// answer only makes Stripe deliver it again.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../errors.ts';
import type { IdentityService } from '../../identity/service.ts';
import { WebhookSignatureError } from '../../identity/kyc/provider.ts';
import type { Logger } from '../../pipeline/log.ts';
import { enforceRate, type RateLimiter } from '../usage/rate-limit.ts';
import { clientKey } from '../usage/ip-rate-limit.ts';

export const stripeWebhookPath = '/webhooks/stripe';
// Stripe's events are a few kilobytes; this leaves room without letting anyone stream megabytes at us.
const maxWebhookBytes = 256 * 1024;

// Per client address: Stripe sends from a few addresses, in bursts when a backlog drains; a
// stranger posting forged bodies costs two HMACs and a log line each, so it is bounded too.
export const webhooksPerMinute = 600;

export function kycWebhookRoutes(router: Router, deps: { identity: IdentityService; log: Logger; limiter: RateLimiter }): void {
  router.post(stripeWebhookPath, async (ctx) => {
    const client = clientKey(ctx.ip);
    enforceRate(ctx, deps.limiter.take(`webhook:${client}`, webhooksPerMinute, webhooksPerMinute), `webhook deliveries from this client address (${client})`);
    if (deps.identity.provider.name !== 'stripe') throw new ApiError('not_found', 'this service does not use Stripe Identity (KYC_PROVIDER)');
    const raw = await readRawBody(ctx);
    try {
      const outcome = await deps.identity.receiveWebhook(raw, ctx.get('Stripe-Signature') || undefined);
      ctx.body = { received: true, applied: outcome.kind === 'applied' };
    } catch (err) {
      if (err instanceof WebhookSignatureError) {
        // Worth a look: a wrong STRIPE_WEBHOOK_SECRET refuses every delivery (the body is not logged).
        deps.log.warn('webhook refused', { path: ctx.path, requestId: ctx.state.requestId, reason: err.message });
        throw new ApiError('bad_request', err.message);
      }
      throw err;
    }
  });
}

async function readRawBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxWebhookBytes) throw new ApiError('payload_too_large', `a webhook body is at most ${maxWebhookBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

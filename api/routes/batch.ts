// POST /v1/reputation:batch: the 2.7 records of up to 100 addresses in one request (paid plans).
// Each address counts as one call (spec 8), metered before any is looked up. The answer keeps the
// request's order: for each address either its record or the error a single lookup would give.
import type Router from '@koa/router';
import { z } from 'zod';
import pLimit from 'p-limit';
import { parseAddress } from '../../pipeline/address.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { ApiError } from '../errors.ts';
import { hasEntitlement, planOf } from '../plans.ts';
import { meter } from '../usage/meter.ts';
import { requireEntitlement } from '../middleware/entitlement.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { serveAddress } from '../reputation/lookup.ts';
import { chainName } from './query.ts';
import type { RecordCache } from '../reputation/cache.ts';
import { withVerificationLevel, type VerificationLevel } from '../reputation/record.ts';
import type { AuthState } from '../middleware/api-key.ts';

export const batchRequestSchema = z
  .object({
    addresses: z
      .array(z.string().max(100, 'an address is at most 100 characters'), { message: 'addresses must be an array of strings' })
      .min(1, 'addresses must not be empty')
      .meta({ description: "EVM or Solana addresses; at most the plan's batch size (100 on every paid plan)" }),
    chain: chainName(z.string()).optional().meta({ description: 'only this chain, as in the single lookup' }),
  })
  .strict();

// Lookups of one batch in flight at once: enough to keep the read pool busy, not to hog it.
const lookupsAtOnce = 8;

export function batchRoutes(
  router: Router<AuthState>,
  deps: { store: Store; now?: () => Date; records?: RecordCache; staleAfterSeconds?: number; verificationLevel: (address: string) => VerificationLevel },
): void {
  // `:` is literal here (escaped), not a path parameter.
  router.post('/v1/reputation\\:batch', jsonBody(), async (ctx) => {
    requireEntitlement(ctx, 'batch', 'batch lookups');
    const parsed = batchRequestSchema.safeParse((ctx.request as { body?: unknown }).body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiError('bad_request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const { addresses, chain } = parsed.data;
    const max = planOf(ctx.state.account.plan).batchMaxAddresses;
    if (addresses.length > max) throw new ApiError('bad_request', `addresses: at most ${max} per request`);
    await meter(ctx, addresses.length);

    const full = hasEntitlement(ctx.state.account.plan, 'full_reputation');
    const now = deps.now?.() ?? new Date();
    const limit = pLimit(lookupsAtOnce);
    const results = await Promise.all(
      addresses.map((address) =>
        limit(async () => {
          const valid = parseAddress(address);
          if (!valid) {
            const error = new ApiError('invalid_address', 'address must be an EVM address (0x + 40 hex) or a Solana base58 public key');
            return { address, status: error.status, error: error.body().error };
          }
          try {
            const served = await serveAddress(deps.store, valid.address, { full, now, chain, staleAfterSeconds: deps.staleAfterSeconds }, deps.records);
            return { address: valid.address, status: 200, record: withVerificationLevel(served.json, deps.verificationLevel(valid.address)) };
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            return { address: valid.address, status: err.status, error: err.body().error };
          }
        }),
      ),
    );
    // Each record's JSON goes in as it was built (and cached), not parsed again: parsing would
    // cost time and round token ids above 2^53 (api/reputation/record.ts).
    const items = results.map(({ record, ...rest }) =>
      record === undefined ? JSON.stringify(rest) : `${JSON.stringify(rest).slice(0, -1)},"record":${record.toString()}}`,
    );
    ctx.type = 'json';
    ctx.body = `{"count":${results.length},"results":[${items.join(',')}]}`;
  });
}

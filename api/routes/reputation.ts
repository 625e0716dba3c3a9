// GET /v1/reputation/{address}: read-only lookup of the newest scoring run (spec 4.1, 2.7).
import type Router from '@koa/router';
import { z } from 'zod';
import { parseAddress } from '../../pipeline/address.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { ApiError } from '../errors.ts';
import { seesFullReputation } from '../plans.ts';
import { buildReputationRecord } from '../reputation/record.ts';
import type { AuthState } from '../middleware/api-key.ts';

const querySchema = z.object({ chain: z.string().regex(/^[a-z0-9-]+$/).optional() });

export function reputationRoutes(router: Router<AuthState>, deps: { store: Store; now?: () => Date }): void {
  router.get('/v1/reputation/:address', async (ctx) => {
    const parsed = parseAddress(ctx.params.address ?? '');
    if (!parsed) throw new ApiError('invalid_address', 'address must be an EVM address (0x + 40 hex) or a Solana base58 public key');
    const query = querySchema.safeParse(ctx.query);
    if (!query.success) throw new ApiError('bad_request', 'chain must be a chain name such as base');

    let rows = await deps.store.read(sqlFile('serve/address_chains'), [parsed.address]);
    if (query.data.chain) rows = rows.filter((r) => r.chain === query.data.chain);
    if (rows.length === 0) {
      throw new ApiError('unknown_address', 'this address has not been indexed; POST /v1/assess to score it', { can_assess: true });
    }
    ctx.body = buildReputationRecord(parsed.address, rows, {
      full: seesFullReputation(ctx.state.account.plan),
      now: deps.now?.() ?? new Date(),
    });
  });
}

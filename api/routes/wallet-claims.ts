// Wallet claims (spec 2.7 `wallet_claimed`, 3.4; DESIGN.md's paths): an account, on any plan,
// proves it controls a wallet by signing a one-time challenge. Behind the API key; free of quota.
// The messages, their checks and the error codes: identity/wallets/claims.ts, docs/decisions.md.
import type Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import type { AuthState } from '../middleware/api-key.ts';
import type { IdentityService } from '../../identity/service.ts';
import { ChainUnavailableError } from '../../identity/wallets/siwe.ts';

export const walletChallengeSchema = z
  .object({
    address: z.string({ message: 'address must be a string: an EVM address (0x and 40 hex digits) or a Solana address (base58)' }).meta({
      description: 'The wallet to claim: EVM 0x + 40 hex (any case), or a Solana address (base58 of an ed25519 public key). Not the EVM zero address.',
    }),
    network: z.enum(['evm', 'solana'], { message: 'network must be evm or solana' }).meta({ description: 'evm (any EVM chain: one address, one owner) or solana.' }),
    chain_id: z
      .number({ message: 'chain_id must be a positive integer' })
      .int('chain_id must be a positive integer')
      .positive('chain_id must be a positive integer')
      .optional()
      .meta({
        description:
          'EVM only: the EIP-155 chain the message names (default 1). A contract wallet (ERC-1271, or ERC-6492 while undeployed) is verified on that chain, so it must be one this service has an RPC URL for; an EOA verifies on any.',
      }),
  })
  .strict();

export const walletClaimSchema = z
  .object({
    message: z.string({ message: 'message must be a string: the message of the challenge answer, exactly as issued' }).min(1, 'message must not be empty').meta({
      description: 'The message of the challenge answer, exactly as issued (same characters, same line breaks).',
    }),
    signature: z.string({ message: 'signature must be a string' }).min(1, 'signature must not be empty').meta({
      description:
        "The wallet's signature of the message. EVM: 0x + hex, an EIP-191 personal_sign signature (65 bytes for an EOA; a contract wallet's ERC-1271 bytes, or ERC-6492-wrapped while undeployed). " +
        'Solana: the base58 of the 64-byte ed25519 signature of the UTF-8 bytes of the message (signMessage).',
    }),
  })
  .strict();

export function walletClaimRoutes(router: Router<AuthState>, deps: { identity: IdentityService }): void {
  router.post('/v1/wallets/challenge', jsonBody(), async (ctx) => {
    const body = requiredFields(ctx.request, ['address', 'network']);
    const parsed = walletChallengeSchema.safeParse(body);
    if (!parsed.success) throw bodyProblem(parsed.error, { network: 'invalid_network', address: 'invalid_wallet' }, 'address, network and chain_id');
    const result = await deps.identity.walletChallenge(ctx.state.account.accountId, {
      network: parsed.data.network,
      address: parsed.data.address,
      chainId: parsed.data.chain_id ?? null,
    });
    if (result.kind === 'refused') throw new ApiError(result.code, result.message);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { nonce: result.nonce, message: result.message, expires_at: result.expiresAt.toISOString() };
  });

  router.post('/v1/wallets/claim', jsonBody(), async (ctx) => {
    const body = requiredFields(ctx.request, ['message', 'signature']);
    const parsed = walletClaimSchema.safeParse(body);
    if (!parsed.success) throw bodyProblem(parsed.error, {}, 'message and signature');
    let result: Awaited<ReturnType<IdentityService['claimWallet']>>;
    try {
      result = await deps.identity.claimWallet(ctx.state.account.accountId, parsed.data);
    } catch (err) {
      if (err instanceof ChainUnavailableError) throw new ApiError('api_error', `could not verify the contract wallet's signature: ${err.message}; retry later`);
      throw err;
    }
    if (result.kind === 'refused') throw new ApiError(result.code, result.message);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { network: result.network, address: result.address, claimed: true, claimed_at: result.claimedAt.toISOString(), verification_level: result.level };
  });
}

/** The body when it is an object with each of `fields`; 400 bad_request naming what is missing. */
function requiredFields(request: unknown, fields: string[]): Record<string, unknown> {
  const body = (request as { body?: unknown }).body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('bad_request', 'the body must be a JSON object');
  const missing = fields.find((field) => (body as Record<string, unknown>)[field] === undefined || (body as Record<string, unknown>)[field] === null);
  if (missing) throw new ApiError('bad_request', `${missing} is required`);
  return body as Record<string, unknown>;
}

// The first problem, with the code of its field where it has one (a bad network is
// invalid_network, a bad address invalid_wallet), else bad_request; those fields come first.
function bodyProblem(error: z.ZodError, fieldCodes: Record<string, 'invalid_network' | 'invalid_wallet'>, takes: string): ApiError {
  const issues = [...error.issues].sort((a, b) => rank(a) - rank(b));
  const issue = issues[0]!;
  if (issue.code === 'unrecognized_keys') return new ApiError('bad_request', `${issue.keys[0]}: not a field of this request (it takes ${takes})`);
  const field = String(issue.path[0]);
  return new ApiError(fieldCodes[field] ?? 'bad_request', issue.message);

  function rank(i: z.core.$ZodIssue): number {
    const order = Object.keys(fieldCodes).indexOf(String(i.path[0]));
    return order >= 0 ? order : Object.keys(fieldCodes).length;
  }
}

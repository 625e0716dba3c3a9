// Operator credentials (spec 4.5-4.7), wallet capture (4.8) and the refresh-token exchange (2.1).
//   POST   /v1/credentials            create (plans with credentials); 409 kyc_required until the
//                                     account holder verified, with a verify_url beside the error
//   GET    /v1/credentials            the holder's verification and the active credentials
//   DELETE /v1/credentials/{id}       revoke; 404 for any id that is not an active credential of this account
//   POST   /v1/credentials/wallets    capture, on every plan (a merchant calls it after each payment)
//   POST   /v1/tokens/refresh         keyless: the refresh token is the credential; limited per client address
import type Router from '@koa/router';
import { z } from 'zod';
import { isZeroEvmAddress, parseAddress } from '../../pipeline/address.ts';
import { ApiError } from '../errors.ts';
import { requireEntitlement } from '../middleware/entitlement.ts';
import { jsonBody } from '../middleware/json-body.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { enforceRate, type RateLimiter } from '../usage/rate-limit.ts';
import { clientKey } from '../usage/ip-rate-limit.ts';
import { parseBody } from './body.ts';
import type { IdentityService } from '../../identity/service.ts';
import { agentMemory, completeKycThenRetry, contactSupport } from '../../identity/guidance.ts';
import { sessionUrls } from '../../identity/session-answers.ts';
import { operatorTokenTtlSeconds } from '../../identity/tokens.ts';

export const createCredentialSchema = z
  .object({
    label: z.string({ message: 'label must be a string' }).max(100, 'label is at most 100 characters').optional().meta({ description: 'Yours, to tell credentials apart; at most 100 characters.' }),
    ttl_days: z
      .number({ message: 'ttl_days must be a whole number from 1 to 365' })
      .int('ttl_days must be a whole number from 1 to 365')
      .min(1, 'ttl_days must be at least 1')
      .max(365, 'ttl_days must be at most 365')
      .optional()
      .meta({ description: 'Days until it expires (default 1).' }),
  })
  .strict();

export const credentialParamsSchema = z.object({ id: z.string().meta({ description: 'The id (UUID) of the create answer or the listing.' }) });

export const captureSchema = z
  .object({
    operator_token: z.string({ error: (issue) => (issue.input === undefined ? 'operator_token is required: the opc_ token the buyer presented' : 'operator_token must be a string') }).min(1, 'operator_token is required').meta({ description: 'The X-Operator-Token the buyer presented on the paid request.' }),
    wallet_address: z.string({ error: (issue) => (issue.input === undefined ? 'wallet_address is required: the wallet that signed the payment' : 'wallet_address must be a string') }).min(1, 'wallet_address is required').meta({
      description: 'The payment signer (EIP-3009 from, or the Solana fee payer key); EVM in any case (stored lowercased), Solana verbatim. Not the zero address.',
    }),
    // Anything but a missing network is checked by the route: not evm or solana is invalid_network.
    network: z.unknown().refine((v) => v !== undefined, 'network is required: evm or solana').meta({ description: 'evm (every EVM chain shares identity) or solana', examples: ['evm'] }),
    // null as absent: a serializer that writes nulls must not lose a capture.
    idempotency_key: z.string({ message: 'idempotency_key must be a string' }).nullish().meta({ description: 'Yours, per payment; longer than 200 characters is cut. The key of the newest capture of the same (credential, wallet, network) makes this one a no-op.' }),
  })
  .strict();

export const refreshSchema = z
  .object({ refresh_token: z.string({ message: 'refresh_token is required: the prt_ token of your login' }).min(1, 'refresh_token is required').meta({ description: 'The prt_ token of the last answer (the poll that delivered your first operator token, or the previous exchange).' }) })
  .strict();

/** Refresh exchanges per minute per client address (a client needs one a day). */
export const refreshesPerMinute = 30;

export function credentialRoutes(router: Router<AuthState>, deps: { identity: IdentityService }): void {
  router.post('/v1/credentials', jsonBody('32kb', { optional: true }), async (ctx) => {
    requireEntitlement(ctx, 'credentials', 'operator credentials');
    const { label, ttl_days } = parseBody(createCredentialSchema, (ctx.request as { body?: unknown }).body);
    const accountId = ctx.state.account.accountId;
    const created = await deps.identity.createCredential(accountId, { label: label ?? null, ttlDays: ttl_days ?? 1 });
    const baseUrl = deps.identity.deps.serviceBaseUrl();
    if (created.kind === 'kyc_required') {
      const verifyUrl = sessionUrls(baseUrl, created.session.id).verifyUrl;
      const why = created.stale
        ? "the account holder's sanctions screening is older than the freshness window: verify again at verify_url (it renews every credential of the account), then create the credential again"
        : 'the account holder has not verified their identity yet: complete it at verify_url, then create the credential again';
      throw new ApiError('kyc_required', why, {}, {}, {
        verify_url: verifyUrl,
        next_steps: completeKycThenRetry({ verifyUrl, expiresAt: created.session.expiresAt }),
      });
    }
    if (created.kind === 'under_review') {
      const { support_email, support_subject, user_message } = contactSupport({ sessionId: created.sessionId, supportEmail: deps.identity.deps.supportEmail() });
      throw new ApiError('kyc_required', "the account holder's verification waits for a manual review: credentials can be created once it is cleared", {}, {}, {
        next_steps: { action: 'contact_support', support_email, support_subject, user_message },
      });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      id: created.token.id,
      credential: created.token.token,
      prefix: created.token.prefix,
      label: created.label,
      expires_at: created.token.expiresAt.toISOString(),
      created_at: created.token.createdAt.toISOString(),
      agent_memory: agentMemory(baseUrl),
    };
  });

  router.get('/v1/credentials', async (ctx) => {
    requireEntitlement(ctx, 'credentials', 'operator credentials');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.identity.listCredentials(ctx.state.account.accountId);
  });

  router.delete('/v1/credentials/:id', async (ctx) => {
    requireEntitlement(ctx, 'credentials', 'operator credentials');
    const { id } = credentialParamsSchema.parse(ctx.params);
    if (!(await deps.identity.revokeCredential(ctx.state.account.accountId, id))) throw new ApiError('not_found', 'no active credential of this account has this id');
    ctx.body = { id, revoked: true };
  });

  router.post('/v1/credentials/wallets', jsonBody(), async (ctx) => {
    const body = parseBody(captureSchema, (ctx.request as { body?: unknown }).body);
    const network = body.network;
    if (network !== 'evm' && network !== 'solana') throw new ApiError('invalid_network', 'network must be evm or solana');
    const wallet = parseAddress(body.wallet_address);
    if (!wallet || wallet.family !== network) {
      throw new ApiError('invalid_wallet', network === 'evm' ? 'wallet_address must be an EVM address (0x + 40 hex)' : 'wallet_address must be a Solana public key (base58 of 32 bytes)');
    }
    if (isZeroEvmAddress(wallet.address)) throw new ApiError('invalid_wallet', 'wallet_address is the zero address, which signs nothing');
    const captured = await deps.identity.captureWallet(ctx.state.account.accountId, {
      operatorToken: body.operator_token,
      network,
      wallet: wallet.address,
      idempotencyKey: body.idempotency_key ?? null,
    });
    if (captured.kind === 'invalid_credential') throw new ApiError('invalid_credential', 'the operator token is unknown, expired or revoked');
    ctx.body = { associated: true, first_seen: captured.firstSeen, ...(captured.deduped ? { deduped: true } : {}) };
  });
}

export function refreshRoutes(router: Router, deps: { identity: IdentityService; limiter: RateLimiter }): void {
  router.post('/v1/tokens/refresh', jsonBody(), async (ctx) => {
    const client = clientKey(ctx.ip);
    enforceRate(ctx, deps.limiter.take(`refresh:${client}`, refreshesPerMinute, refreshesPerMinute), `token refreshes from this client address (${client})`);
    const { refresh_token } = parseBody(refreshSchema, (ctx.request as { body?: unknown }).body);
    const exchanged = await deps.identity.exchangeRefreshToken(refresh_token);
    ctx.set('Cache-Control', 'no-store');
    switch (exchanged.kind) {
      case 'rotated':
        ctx.body = {
          operator_token: exchanged.access.token,
          token_ttl_seconds: operatorTokenTtlSeconds,
          expires_at: exchanged.access.expiresAt.toISOString(),
          refresh_token: exchanged.refresh.token,
          refresh_token_expires_at: exchanged.refresh.expiresAt.toISOString(),
        };
        return;
      case 'reused':
        throw new ApiError('token_expired', 'this refresh token was used before: every token of its login is revoked now; verify again to get new ones');
      case 'expired':
        throw new ApiError('token_expired', 'this refresh token expired or was revoked: verify again to get new ones');
      case 'unknown':
        throw new ApiError('invalid_credential', 'this is not a refresh token of this service');
    }
  });
}

// POST /v1/assess (spec 4.2; plans with `assess`): thin: the body checked with zod, one identity
// call, the answer rendered. Its errors are the spec's: invalid_request for a body it cannot read
// (naming the field), invalid_identity without an identity, invalid_address for an invalid wallet,
// invalid_test_address in test mode, 401 invalid_credential / token_expired for operator tokens,
// and 503 api_error (never a bare 500) when the service fails. A live call is one call of the
// quota and takes the key's rate limit; test mode takes neither (api/usage/middleware.ts).
import type Router from '@koa/router';
import bs58 from 'bs58';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { requirePlanEntitlement } from '../middleware/entitlement.ts';
import { jsonBody } from '../middleware/json-body.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { meter } from '../usage/meter.ts';
import { takeRate } from '../usage/middleware.ts';
import { chainName } from './query.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { IdentityService } from '../../identity/service.ts';
import type { AssessIdentity, AssessRequest } from '../../identity/assess/assess.ts';
import type { PlanName } from '../plans.ts';
import { jurisdictionCode } from '../../identity/jurisdictions.ts';
import type { Policy } from '../../identity/assess/policy.ts';
import { isZeroEvmAddress } from '../../pipeline/address.ts';

const jurisdictions = (field: string) =>
  z
    .array(z.string({ message: `${field} must be an array of ISO 3166-1 alpha-2 country codes` }), { message: `${field} must be an array of ISO 3166-1 alpha-2 country codes` })
    .max(300, `${field} has at most 300 codes`)
    .transform((codes, ctx) => {
      const parsed = codes.map((code) => jurisdictionCode(code));
      const bad = codes.find((_, i) => parsed[i] === null);
      if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `${field}: ${JSON.stringify(bad)} is not an ISO 3166-1 alpha-2 country code` });
      return [...new Set(parsed.filter((c): c is string => c !== null))];
    })
    .optional();

export const assessRequestSchema = z
  .object({
    address: z.string({ message: 'address must be a string' }).max(100, 'address is at most 100 characters').optional().meta({ description: 'EVM (0x + 40 hex, any case) or Solana (base58 public key); one of address and operator_token' }),
    operator_token: z.string({ message: 'operator_token must be a string' }).max(200, 'operator_token is at most 200 characters').optional().meta({ description: 'opc_…; one of address and operator_token' }),
    chain: chainName(z.string({ message: 'chain must be a string' })).optional().meta({ description: 'accepted for compatibility: assess answers identity data only (spec 4.2 rule 5)' }),
    refresh: z.boolean({ message: 'refresh must be true or false' }).optional().meta({ description: 'rescore the address now (wallet mode; queued, the answer does not wait)' }),
    policy: z
      .object({
        require_kyc: z.boolean({ message: 'policy.require_kyc must be true or false' }).optional(),
        require_sanctions_clear: z.boolean({ message: 'policy.require_sanctions_clear must be true or false' }).optional(),
        min_age: z.union([z.literal(18), z.literal(21)], { message: 'policy.min_age must be 18 or 21' }).optional(),
        blocked_jurisdictions: jurisdictions('policy.blocked_jurisdictions'),
        allowed_jurisdictions: jurisdictions('policy.allowed_jurisdictions'),
      }, { message: 'policy must be an object' })
      .strict()
      .optional(),
    signer: z
      .object({
        address: z.string({ message: 'signer.address must be a string or null' }).max(100).nullable().meta({ description: 'the payment signer; null: the rail has no wallet signature' }),
        network: z.enum(['evm', 'solana'], { message: 'signer.network must be evm or solana' }),
      }, { message: 'signer must be an object with address and network' })
      .strict()
      .optional(),
    test: z.boolean({ message: 'test must be true or false' }).optional().meta({ description: 'test mode: the reserved addresses 0x…0001 to 0x…0007 only; no write, no quota' }),
  }, { message: 'the body must be a JSON object' })
  .strict();

/** The largest body assess reads (413 payload_too_large past it), in bytes and as the body parser's limit. */
export const assessBodyLimitBytes = 32 * 1024;
const assessBodyLimit = `${assessBodyLimitBytes / 1024}kb`;

export function assessRoutes(router: Router<AuthState>, deps: { identity: IdentityService; log: Logger }): void {
  router.post('/v1/assess', jsonBody(assessBodyLimit, { invalid: 'invalid_request' }), async (ctx) => {
    const request = readAssessRequest((ctx.request as { body?: unknown }).body, ctx.state.account.plan);
    if (!request.test) {
      await takeRate(ctx);
      try {
        await meter(ctx, 1);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'quota_exceeded') throw withAgentInstructions(err);
        if (err instanceof ApiError) throw err;
        throw unavailable(deps.log, ctx.state.requestId as string, err);
      }
    }
    const body = await answerAssess(deps, ctx.state.account.accountId, request, ctx.state.requestId as string);
    ctx.set(answerHeaders);
    ctx.body = body;
  });
}

/** Beside the answer: it may carry a session's poll secret, so it is never cached on the way. */
export const answerHeaders = { 'Cache-Control': 'no-store' } as const;

/**
 * The request of an assess body for an account of `plan`: 402 payment_required without `assess`,
 * or for a policy without `custom_policies`; the request errors of the file's head otherwise.
 */
export function readAssessRequest(raw: unknown, plan: PlanName): AssessRequest {
  requirePlanEntitlement(plan, 'assess', 'assess');
  const parsed = assessRequestSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError('invalid_request', requestProblem(parsed.error));
  const body = parsed.data;
  const policy = body.policy as Policy | undefined;
  if (policy) requirePlanEntitlement(plan, 'custom_policies', 'a custom policy');
  const identity = identityOf(body.address, body.operator_token);
  const signer = body.signer ? { network: body.signer.network, address: body.signer.address === null ? null : walletOf(body.signer.address, 'signer.address', body.signer.network) } : undefined;
  return { identity, policy, signer, refresh: body.refresh, test: body.test };
}

/**
 * The identity service's answer to a counted (or test-mode) request: the body of a 200, or the
 * ApiError of a refusal; a failure of the service is 503 api_error.
 */
export async function answerAssess(deps: { identity: IdentityService; log: Logger }, accountId: string, request: AssessRequest, requestId: string): Promise<Record<string, unknown>> {
  let outcome;
  try {
    outcome = await deps.identity.assess(accountId, request, requestId);
  } catch (err) {
    throw unavailable(deps.log, requestId, err);
  }
  switch (outcome.kind) {
    case 'invalid_test_address':
      throw new ApiError('invalid_test_address', 'test mode takes only the reserved addresses 0x0000000000000000000000000000000000000001 to …0007');
    case 'invalid_credential':
      throw new ApiError('invalid_credential', 'the operator token is not one of this service: switch tokens or start a new verification');
    case 'token_expired':
      throw new ApiError('token_expired', 'the operator token expired or was revoked: verify again at verify_url', outcome.session, answerHeaders);
    case 'answer':
      return outcome.body;
  }
}

// Exactly one identity (spec 4.2): neither is invalid_identity; both is a request that says two things.
function identityOf(address: string | undefined, token: string | undefined): AssessIdentity {
  if (address === undefined && token === undefined) throw new ApiError('invalid_identity', 'give address (a wallet) or operator_token (opc_…)');
  if (address !== undefined && token !== undefined) throw new ApiError('invalid_request', 'give address or operator_token, not both');
  if (token !== undefined) return { kind: 'operator_token', token };
  const network = formOf(address!);
  return { kind: 'wallet', network, address: walletOf(address!, 'address', network) };
}

// An address of no known form is a request problem (invalid_request); one of a known form that is
// not a valid wallet (wrong length, not 32 bytes, the zero address) is invalid_address.
function formOf(address: string): 'evm' | 'solana' {
  if (/^0[xX]/.test(address)) return 'evm';
  if (/^[1-9A-HJ-NP-Za-km-z]+$/.test(address)) return 'solana';
  throw new ApiError('invalid_request', 'address: neither an EVM address (0x + 40 hex) nor a Solana public key (base58)');
}

function walletOf(address: string, field: string, network: 'evm' | 'solana'): string {
  if (network === 'evm') {
    if (!/^0[xX][0-9a-fA-F]{40}$/.test(address)) throw new ApiError('invalid_address', `${field}: not an EVM address (0x + 40 hex)`);
    const lower = `0x${address.slice(2).toLowerCase()}`;
    if (isZeroEvmAddress(lower)) throw new ApiError('invalid_address', `${field}: the zero address signs nothing`);
    return lower;
  }
  let bytes: Uint8Array | null = null;
  try {
    bytes = bs58.decode(address);
  } catch {
    bytes = null;
  }
  if (!bytes || bytes.length !== 32) throw new ApiError('invalid_address', `${field}: not a Solana public key (base58 of 32 bytes)`);
  return address;
}

// Spec 7.1: a failure of the service on assess is a transient 5xx api_error, retried by gates.
function unavailable(log: Logger, requestId: string, err: unknown): ApiError {
  log.error('assess failed', { requestId, error: String((err as Error)?.stack ?? err) });
  return new ApiError('api_error', 'assess is unavailable for a moment; retry with backoff (5 to 30 s)');
}

function withAgentInstructions(err: ApiError): ApiError {
  const instructions = {
    action: 'contact_merchant',
    steps: ["The merchant's identity checks are over their quota for this billing cycle.", 'Do not retry now; tell the merchant or try again after the quota resets.'],
    user_message: 'The merchant cannot check identities right now; please contact them.',
  };
  return new ApiError(err.code, err.message, { ...err.extra, agent_instructions: instructions }, err.headers);
}

function requestProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') return `${[...issue.path, issue.keys[0]].join('.')}: not a field of this request`;
  if (issue.path.length === 0) return issue.message;
  const field = issue.path.join('.');
  return issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
}

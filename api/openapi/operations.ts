// Every public operation of the API in one list: its method and path, what it is for, the zod
// schemas its handler validates the request with (imported from the route modules, not copied),
// and its responses with their status codes, error codes and headers. The OpenAPI document
// (document.ts) and the /docs page are generated from this list; test/openapi.test.ts checks that
// it names exactly the routes the Koa routers serve, so a new route without an entry fails there.
import type { z } from 'zod';
import { errorStatus, type ErrorCode } from '../errors.ts';
import { agentsQuerySchema } from '../routes/agents.ts';
import { batchRequestSchema } from '../routes/batch.ts';
import { browseQuerySchema, identifiedQuerySchema } from '../routes/legacy.ts';
import { addressParamsSchema, reputationQuerySchema } from '../routes/reputation.ts';
import { signingKeyPath } from '../security/signing.ts';
import { createSessionSchema, pollHeadersSchema, sessionParamsSchema } from '../routes/sessions.ts';
import { walletChallengeSchema, walletClaimSchema } from '../routes/wallet-claims.ts';
import { sandboxFormSchema } from '../routes/verify.ts';
import { stripeWebhookPath } from '../routes/kyc-webhooks.ts';
import { captureSchema, createCredentialSchema, credentialParamsSchema, refreshSchema } from '../routes/credentials.ts';
import { assessRequestSchema } from '../routes/assess.ts';
import * as s from './schemas.ts';

export type HeaderName = keyof typeof responseHeaders;

/** Response headers, described once; operations list which of them each response carries. */
export const responseHeaders = {
  'X-Request-Id': { description: 'Time-sortable id of this request (req_…); also in the server logs.', type: 'string' },
  'X-RateLimit-Limit': { description: 'Requests per minute of this key, or on the routes without a key of this client address (on a per-second refusal: per second).', type: 'integer' },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute (0 on a refusal).', type: 'integer' },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the refusing or current window resets.', type: 'integer' },
  'Retry-After': { description: 'Whole seconds to wait before retrying (at least 1).', type: 'integer' },
  'X-Quota-Limit': { description: 'Calls included per billing cycle (plans with a quota only).', type: 'integer' },
  'X-Quota-Used': { description: 'Calls counted in this billing cycle, this request included (a refused request is not counted).', type: 'integer' },
  'X-Quota-Reset': { description: 'ISO-8601 end of the billing cycle, when usage resets.', type: 'string' },
  'Cache-Control': { description: 'How long the answer may be reused.', type: 'string' },
  'X-Signature': { description: 'Enterprise keys: base64 Ed25519 signature of `${X-Signature-Timestamp}.` + the body bytes.', type: 'string' },
  'X-Signature-Timestamp': { description: 'Enterprise keys: Unix seconds when the response was signed.', type: 'string' },
  'X-Signature-Key-Id': { description: `Enterprise keys: the key id of the signing key (see GET ${signingKeyPath}).`, type: 'string' },
  Location: { description: 'Where the browser goes next (303 See Other).', type: 'string' },
  'Content-Security-Policy': { description: "The verify page's policy: no script, no third-party asset, its own inline style only, forms to itself, never in a frame.", type: 'string' },
} as const;

export interface ResponseDoc {
  description: string;
  /** Absent for a body that is not JSON (contentType says what it is). */
  body?: z.ZodType;
  contentType?: 'application/json' | 'text/html';
  headers: readonly HeaderName[];
  /** For error responses: the 7.1 codes this operation can answer with at this status. */
  errorCodes?: readonly ErrorCode[];
}

export type Tag = 'reputation' | 'identity' | 'verify' | 'agents' | 'stats' | 'legacy' | 'service';

export const tags: Record<Tag, string> = {
  reputation: 'Reputation records of wallet addresses (X-API-Key; each address looked up is one call).',
  identity: 'Verification sessions: a merchant creates one (X-API-Key, plans with sessions) for an agent without an identity; the agent polls it with its poll secret (no key) until it receives a one-time operator token. Wallet claims: an account (X-API-Key, any plan) proves it controls a wallet by signing a one-time challenge. Free of quota.',
  verify: "The verify page a person opens from a session's verify_url, its actions, and the KYC vendor's webhook. No key: the session id in the URL, or the vendor's signature, is the credential.",
  agents: 'Registered ERC-8004 agents (X-API-Key; free of quota).',
  stats: 'Aggregate statistics of the newest scoring run (X-API-Key; free of quota).',
  legacy: 'Open endpoints of the first version: no key, free, cached 5 minutes, rate limited per client address. Prefer /v1 for new use.',
  service: 'Health, the response signing key, where to get a key, and this reference.',
};

export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: Tag;
  /** True for the /v1 routes behind X-API-Key. */
  apiKey: boolean;
  /** The very schemas the handler parses its input with (a body is JSON unless `bodyType` says otherwise). */
  request: {
    params?: z.ZodObject;
    query?: z.ZodObject;
    headers?: z.ZodObject;
    body?: z.ZodType;
    bodyType?: 'application/x-www-form-urlencoded' | 'application/octet-stream';
    /** A body the route can do without (all its fields optional). */
    bodyOptional?: boolean;
  };
  responses: Readonly<Record<number, ResponseDoc>>;
}

const signed = ['X-Signature', 'X-Signature-Timestamp', 'X-Signature-Key-Id'] as const;
const rateHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;
const quotaHeaders = ['X-Quota-Limit', 'X-Quota-Used', 'X-Quota-Reset'] as const;

/**
 * Error responses grouped by status, each body limited to its codes. Behind the key, every answer
 * after the key check carries the rate-limit headers; 429 rate_limited adds Retry-After.
 */
function errors(codes: readonly ErrorCode[], options: { apiKey: boolean; metered?: boolean; perIp?: boolean }): Record<number, ResponseDoc> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  const out: Record<number, ResponseDoc> = {};
  for (const [status, group] of byStatus) {
    // A 401 of the key comes before the limits; assess's token answers (invalid_credential, token_expired) after them.
    const beforeLimits = (status === 401 && group.every((c) => c === 'signup_required' || c === 'unauthorized')) || (status === 403 && !group.includes('ip_not_allowed'));
    const headers: HeaderName[] = ['X-Request-Id'];
    // The per-IP limit of the open routes runs before anything else they do.
    if ((options.apiKey && !beforeLimits) || options.perIp) headers.push(...rateHeaders);
    if (group.includes('rate_limited')) headers.push('Retry-After');
    // Counted calls carry the quota from the count on, including a 404 after it; a 5xx after it is
    // taken back (api/usage/meter.ts, refundFailedRequest) and carries none. A 429 rate_limited
    // carries it on every route behind the key (api/usage/middleware.ts).
    const quota = options.metered && (group.includes('quota_exceeded') || status === 404 || group.includes('invalid_credential') || group.includes('token_expired'));
    if (quota || (options.apiKey && group.includes('rate_limited'))) headers.push(...quotaHeaders);
    if (options.apiKey) headers.push(...signed);
    out[status] = { description: group.map((c) => errorMeanings[c] ?? c).join('; '), body: s.errorBody(group), headers, errorCodes: group };
  }
  return out;
}

const errorMeanings: Partial<Record<ErrorCode, string>> = {
  bad_request: 'bad_request: a parameter or the body is invalid (the message names it)',
  invalid_address: 'invalid_address: not an EVM or Solana address',
  signup_required: 'signup_required: X-API-Key missing or unknown (signup_url says where to get one)',
  payment_required: 'payment_required: the plan lacks this feature (plan, entitlement)',
  account_cancelled: 'account_cancelled: the account was cancelled',
  ip_not_allowed: "ip_not_allowed: the caller's IP is not in the key's allowlist",
  unknown_address: 'unknown_address: not indexed (can_assess)',
  payload_too_large: 'payload_too_large: the body is over 32 kB',
  unsupported_media_type: 'unsupported_media_type: the body is not application/json',
  rate_limited: 'rate_limited: too many requests in this second or minute; retry after Retry-After',
  quota_exceeded: 'quota_exceeded: the free plan used its calls for this cycle; do not retry before X-Quota-Reset',
  internal_error: 'internal_error: unexpected failure; report the X-Request-Id',
  stale_data: 'stale_data: the newest scoring run is older than the stale limit (STALE_AFTER_SECONDS, 24 h by default; view variant only)',
  unavailable: 'unavailable: the server is shutting down',
  invalid_network: 'invalid_network: network is not evm or solana',
  invalid_wallet: 'invalid_wallet: not a wallet address of the network (malformed, the EVM zero address; for a claim also a Solana address no key signs for)',
  invalid_challenge: 'invalid_challenge: the message is not a live challenge of this account (unknown nonce, changed text, another domain, expired or used): ask for a new one',
  invalid_signature: "invalid_signature: the signature is not the wallet's (another signer, or a contract wallet on a chain without an RPC URL here)",
  api_error: 'api_error: a service this one depends on did not answer (for a wallet claim: the chain of a contract wallet); retry later',
};

/** What every /v1 route can answer before its own work: the key, the allowlist, the rate limit. */
const keyErrors: ErrorCode[] = ['signup_required', 'account_cancelled', 'ip_not_allowed', 'rate_limited', 'internal_error'];

const ok = (description: string, body: z.ZodType, headers: readonly HeaderName[]): ResponseDoc => ({ description, body, headers: ['X-Request-Id', ...headers] });

export const operations: readonly Operation[] = [
  {
    method: 'get',
    path: '/v1/reputation/{address}',
    operationId: 'getReputation',
    summary: 'Reputation of one address',
    description:
      'The 2.7 record the newest scoring run precomputed: complete on paid plans, redacted on free. ' +
      'With view, min_grade or min_transactions: the 2.8 variant (EVM addresses only) with its decision under the policy. One call.',
    tag: 'reputation',
    apiKey: true,
    request: { params: addressParamsSchema, query: reputationQuerySchema },
    responses: {
      200: ok("The 2.7 record, or the 2.8 variant when view, min_grade or min_transactions is given. Cache-Control: private, max-age=<the plan's cache TTL>.", s.reputationLookup, [
        ...rateHeaders,
        ...quotaHeaders,
        'Cache-Control',
        ...signed,
      ]),
      ...errors(['bad_request', 'invalid_address', 'payment_required', 'unknown_address', 'quota_exceeded', 'stale_data', 'unavailable', ...keyErrors], {
        apiKey: true,
        metered: true,
      }),
    },
  },
  {
    method: 'post',
    path: '/v1/reputation:batch',
    operationId: 'batchReputation',
    summary: 'Reputation of up to 100 addresses',
    description:
      'Paid plans. Each address counts as one call, metered before any is looked up. Results keep the request order: ' +
      'for each address its 2.7 record, or the error a single lookup would give (invalid_address, unknown_address).',
    tag: 'reputation',
    apiKey: true,
    request: { body: batchRequestSchema },
    responses: {
      200: ok('One result per address, in request order.', s.batchResponse, [...rateHeaders, ...quotaHeaders, ...signed]),
      ...errors(['bad_request', 'payment_required', 'payload_too_large', 'unsupported_media_type', 'quota_exceeded', 'unavailable', ...keyErrors], {
        apiKey: true,
        metered: true,
      }),
    },
  },
  {
    method: 'post',
    path: '/v1/assess',
    operationId: 'assess',
    summary: 'Assess an identity under a policy',
    description:
      'Plans with assess. A wallet (address) or an operator token, an optional policy (KYC, sanctions screening within the freshness window, minimum age, jurisdictions), an optional payment signer ' +
      '(same-person check and a sanctions-list check with no opt-out, failing closed). allow or deny with every failed reason, one explanation per rule, and a verify_url (with its session) ' +
      'for denials a verification can fix. One call of the quota. test: true takes the reserved addresses 0x…0001 to 0x…0007 and no quota, rate limit or write.',
    tag: 'identity',
    apiKey: true,
    request: { body: assessRequestSchema },
    responses: {
      200: ok('The decision (Cache-Control: no-store).', s.assessAnswer, [...rateHeaders, ...quotaHeaders, 'Cache-Control', ...signed]),
      ...assessErrors(),
    },
  },
  {
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Create a verification session',
    description:
      'Plans with sessions (paid). For an agent that has neither wallet nor credential: the answer has verify_url (for the person) and the poll secret (for the agent, shown once). ' +
      'The body is optional; return_url and payment-method fields are refused by name. The merchant name on the page is the account\'s display name (reputation accounts rename). Free of quota.',
    tag: 'identity',
    apiKey: true,
    request: { body: createSessionSchema, bodyOptional: true },
    responses: {
      200: ok('A pending session with its secrets, next_steps (deliver_verify_url_and_poll) and agent_memory (Cache-Control: no-store).', s.sessionCreated, [...rateHeaders, 'Cache-Control', ...signed]),
      ...errors(['bad_request', 'payment_required', 'payload_too_large', 'unsupported_media_type', 'unavailable', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/{session_id}',
    operationId: 'pollSession',
    summary: 'Poll a verification session',
    description:
      'No API key: the agent sends X-Poll-Secret. Every 5 seconds at most; 30 polls a minute per client address. The operator token is in exactly one answer ' +
      '(the first poll after verification); later polls answer consumed. An unknown session and a wrong secret get the same 401.',
    tag: 'identity',
    apiKey: false,
    request: { params: sessionParamsSchema, headers: pollHeadersSchema },
    responses: {
      200: ok('The session now, with its next_steps (Cache-Control: no-store).', s.sessionPoll, [...rateHeaders, 'Cache-Control']),
      ...errors(['unauthorized', 'rate_limited', 'unavailable', 'internal_error'], { apiKey: false, perIp: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/wallets/challenge',
    operationId: 'createWalletChallenge',
    summary: 'Get a one-time message to sign with a wallet',
    description:
      'Any plan. Step one of a wallet claim: the exact text to sign with the wallet, an EIP-4361 (Sign-In with Ethereum) message for evm or a Sign-In With Solana message for solana, ' +
      "naming this service's domain and URI, the account, a random nonce and an expiry 10 minutes on. Sign it as it is (personal_sign / signMessage) and send it to POST /v1/wallets/claim. Free of quota.",
    tag: 'identity',
    apiKey: true,
    request: { body: walletChallengeSchema },
    responses: {
      200: ok('The message to sign (Cache-Control: no-store).', s.walletChallenge, [...rateHeaders, 'Cache-Control', ...signed]),
      ...errors(['bad_request', 'invalid_network', 'invalid_wallet', 'payload_too_large', 'unsupported_media_type', 'unavailable', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/wallets/claim',
    operationId: 'claimWallet',
    summary: 'Claim a wallet with its signature of a challenge',
    description:
      'Any plan. The message exactly as this account was issued it, unexpired and unused (single use), and the wallet\'s signature of it: an EOA, a deployed contract wallet (ERC-1271) or an undeployed one (ERC-6492) ' +
      'on a chain this service has an RPC URL for (other chains: EOAs only), or a Solana key (ed25519). The wallet is then this account\'s (the newest claim of a wallet wins) and its reputation ' +
      'record shows verification_level wallet_claimed, or kyc_verified once the account holder verified their identity. Free of quota.',
    tag: 'identity',
    apiKey: true,
    request: { body: walletClaimSchema },
    responses: {
      200: ok('The claim (Cache-Control: no-store).', s.walletClaimed, [...rateHeaders, 'Cache-Control', ...signed]),
      ...errors(['bad_request', 'invalid_challenge', 'invalid_signature', 'payload_too_large', 'unsupported_media_type', 'api_error', 'unavailable', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/credentials',
    operationId: 'createCredential',
    summary: 'Create an operator credential',
    description:
      'Plans with credentials. An opc_ token for your agents, identifying you (the account holder) once you verified your own identity; shown once. ' +
      'Before that: 409 kyc_required with verify_url (your verification) and next_steps beside the error. Free of quota.',
    tag: 'identity',
    apiKey: true,
    request: { body: createCredentialSchema, bodyOptional: true },
    responses: {
      200: ok('The credential, shown this once (Cache-Control: no-store).', s.credentialCreated, [...rateHeaders, 'Cache-Control', ...signed]),
      409: { description: 'kyc_required: verify first (verify_url), or a flagged verification waits for a review', body: s.kycRequiredBody, headers: ['X-Request-Id', ...rateHeaders, ...signed], errorCodes: ['kyc_required'] },
      ...errors(['bad_request', 'payment_required', 'payload_too_large', 'unsupported_media_type', 'unavailable', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'get',
    path: '/v1/credentials',
    operationId: 'listCredentials',
    summary: 'Your verification and active credentials',
    description: 'Plans with credentials. account_verification (spec 2.2: only kyc_status none before you verified) and the active credentials, without their values. Free of quota.',
    tag: 'identity',
    apiKey: true,
    request: {},
    responses: {
      200: ok('The listing (Cache-Control: no-store).', s.credentialList, [...rateHeaders, 'Cache-Control', ...signed]),
      ...errors(['payment_required', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'delete',
    path: '/v1/credentials/{id}',
    operationId: 'revokeCredential',
    summary: 'Revoke a credential',
    description: 'Plans with credentials. From now on the credential is refused (token_expired at gates), and wallets captured under it no longer link to you. Any id that is not an active credential of this account: 404.',
    tag: 'identity',
    apiKey: true,
    request: { params: credentialParamsSchema },
    responses: {
      200: ok('Revoked.', s.credentialRevoked, [...rateHeaders, ...signed]),
      ...errors(['not_found', 'payment_required', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/credentials/wallets',
    operationId: 'captureWallet',
    summary: 'Report the wallet that paid under an operator token',
    description:
      'Every plan. Call it after each successful payment, fire and forget (never hold the payment answer on it). Builds the credential-to-wallet profile that links an operator\'s wallets. Free of quota.',
    tag: 'identity',
    apiKey: true,
    request: { body: captureSchema },
    responses: {
      200: ok('Associated.', s.walletCaptured, [...rateHeaders, ...signed]),
      ...errors(['bad_request', 'invalid_network', 'invalid_wallet', 'invalid_credential', 'payload_too_large', 'unsupported_media_type', 'unavailable', ...keyErrors], { apiKey: true }),
    },
  },
  {
    method: 'post',
    path: '/v1/tokens/refresh',
    operationId: 'refreshToken',
    summary: 'Exchange a refresh token for a fresh pair',
    description:
      'No API key: the prt_ token is the credential. Spends it (single use) and answers a new operator token and the next refresh token. A spent one presented again revokes its whole login ' +
      '(every refresh and operator token of it): 401 token_expired. 30 exchanges a minute per client address.',
    tag: 'identity',
    apiKey: false,
    request: { body: refreshSchema },
    responses: {
      200: ok('A fresh pair (Cache-Control: no-store).', s.tokenRefreshed, [...rateHeaders, 'Cache-Control']),
      ...errors(['bad_request', 'invalid_credential', 'token_expired', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'unavailable', 'internal_error'], { apiKey: false, perIp: true }),
    },
  },
  ...verifyPage(),
  {
    method: 'get',
    path: '/v1/stats',
    operationId: 'getStats',
    summary: 'Statistics of the newest scoring run',
    description: 'The v2 statistics body (spec 4.9). Zeros before the first run. Cached 30 minutes; free of quota.',
    tag: 'stats',
    apiKey: true,
    request: {},
    responses: {
      200: ok('Statistics (Cache-Control: private, max-age=1800).', s.statsV2, [...rateHeaders, 'Cache-Control', ...signed]),
      ...errors(keyErrors, { apiKey: true }),
    },
  },
  {
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: 'Browse registered ERC-8004 agents',
    description: 'Agents of the newest scoring state, filtered, ordered by score descending, then chain and agent id. Pages by offset or by cursor (keyset). Free of quota.',
    tag: 'agents',
    apiKey: true,
    request: { query: agentsQuerySchema },
    responses: {
      200: ok('A page of agents.', s.agentList, [...rateHeaders, ...signed]),
      ...errors(['bad_request', ...keyErrors], { apiKey: true }),
    },
  },
  ...legacy(),
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Service health',
    description: 'The database (a query through the read pool), Redis when configured, and the age of the newest scoring run. No key, free.',
    tag: 'service',
    apiKey: false,
    request: {},
    responses: {
      200: ok('ok or degraded (Cache-Control: no-store).', s.health, ['Cache-Control']),
      503: ok('unhealthy: the database does not answer (same body).', s.health, ['Cache-Control']),
      ...errors(['internal_error'], { apiKey: false }),
    },
  },
  {
    method: 'get',
    path: signingKeyPath,
    operationId: 'getSigningKey',
    summary: 'Public key of signed responses',
    description: 'The Ed25519 public key that signs every response to an enterprise key (X-Signature headers), as a JWK set and PEM. No key.',
    tag: 'service',
    apiKey: false,
    request: {},
    responses: { 200: ok('The public key (Cache-Control: public, max-age=300).', s.signingKey, ['Cache-Control']), ...errors(['internal_error'], { apiKey: false }) },
  },
  {
    method: 'get',
    path: '/signup',
    operationId: 'getSignup',
    summary: 'How to get an API key',
    description: 'Where a 401 signup_required points when no SIGNUP_URL is configured: keys are issued by the operator of the service.',
    tag: 'service',
    apiKey: false,
    request: {},
    responses: { 200: ok('How to ask for a key, and the plan names.', s.signup, []), ...errors(['internal_error'], { apiKey: false }) },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This reference as OpenAPI 3.1',
    description: 'The OpenAPI 3.1 document of the API, generated from the schemas the handlers validate with. No key; cached.',
    tag: 'service',
    apiKey: false,
    request: {},
    responses: {
      200: ok('The document (Cache-Control: public, max-age=300; ETag).', s.openApiDocument, ['Cache-Control', ...rateHeaders]),
      ...errors(['rate_limited', 'internal_error'], { apiKey: false, perIp: true }),
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getDocs',
    summary: 'This reference as HTML',
    description: 'A readable page rendered from the OpenAPI document. No key; cached.',
    tag: 'service',
    apiKey: false,
    request: {},
    responses: {
      200: { description: 'The HTML page (Cache-Control: public, max-age=300; ETag).', contentType: 'text/html', headers: ['X-Request-Id', 'Cache-Control', ...rateHeaders] },
      ...errors(['rate_limited', 'internal_error'], { apiKey: false, perIp: true }),
    },
  },
];

// A 401 token_expired carries a session's poll secret: Cache-Control: no-store.
function assessErrors(): Record<number, ResponseDoc> {
  const all = errors(
    ['invalid_request', 'invalid_identity', 'invalid_address', 'invalid_test_address', 'invalid_credential', 'token_expired', 'payment_required', 'payload_too_large', 'unsupported_media_type', 'quota_exceeded', 'api_error', ...keyErrors],
    { apiKey: true, metered: true },
  );
  return { ...all, 401: { ...all[401]!, headers: [...all[401]!.headers, 'Cache-Control'] } };
}

function verifyPage(): Operation[] {
  const page = (description: string): ResponseDoc => ({ description, contentType: 'text/html', headers: ['X-Request-Id', 'Content-Security-Policy', 'Cache-Control', ...rateHeaders] });
  const params = { params: sessionParamsSchema };
  const limited = errors(['rate_limited', 'internal_error'], { apiKey: false, perIp: true });
  return [
    {
      method: 'get',
      path: '/verify/{session_id}',
      operationId: 'verifyPage',
      summary: 'The verify page',
      description:
        "What the person sees: the merchant and product, what will be checked and what the merchant will see, then the session's state: the sandbox form or the vendor's start link " +
        '(pending), complete (verified, consumed), failed (with a retry while possible), flagged (manual review) or expired. Readable on a phone; no script.',
      tag: 'verify',
      apiKey: false,
      request: params,
      responses: { 200: page('The page.'), 404: page('No such session.'), ...limited },
    },
    {
      method: 'post',
      path: '/verify/{session_id}',
      operationId: 'submitSandboxVerification',
      summary: 'The sandbox outcome (KYC_PROVIDER sandbox)',
      description: "The sandbox form: the outcome and, for verified, the facts and a name to screen (a listed name leads to flagged). Then back to the page. Refused from another site's page.",
      tag: 'verify',
      apiKey: false,
      request: { ...params, body: sandboxFormSchema, bodyType: 'application/x-www-form-urlencoded' },
      responses: {
        303: { description: 'Recorded (or the session had moved on): back to the page.', headers: ['X-Request-Id', 'Location', ...rateHeaders] },
        400: page('The form is incomplete: the page again, with the problem.'),
        403: page('A post from another site.'),
        404: page('No such session.'),
        ...limited,
      },
    },
    {
      method: 'get',
      path: '/verify/{session_id}/start',
      operationId: 'startHostedVerification',
      summary: "Start the vendor's verification (KYC_PROVIDER stripe)",
      description: "Starts an attempt (a new one after a failure; the open one again while pending) and sends the browser to the vendor's hosted page, which returns it to the verify page.",
      tag: 'verify',
      apiKey: false,
      request: params,
      responses: {
        303: { description: "To the vendor's page, or back to the verify page when the session is not pending or failed with a retry left.", headers: ['X-Request-Id', 'Location', 'Cache-Control', ...rateHeaders] },
        502: page('The vendor could not be reached: a page saying so.'),
        ...limited,
      },
    },
    {
      method: 'post',
      path: stripeWebhookPath,
      operationId: 'stripeIdentityWebhook',
      summary: 'Stripe Identity webhook',
      description:
        'identity.verification_session.* events, verified by their Stripe-Signature (timestamped HMAC, 5-minute window) before anything is read. Every verified delivery is acknowledged; ' +
        'one that changes nothing (redelivered, replayed, for a finished or stale attempt) says applied: false. 404 when KYC_PROVIDER is not stripe.',
      tag: 'verify',
      apiKey: false,
      request: { bodyType: 'application/octet-stream' },
      responses: {
        200: ok('Received (with the rate-limit headers: 600 deliveries a minute per client address).', s.webhookAck, [...rateHeaders]),
        ...errors(['bad_request', 'not_found', 'payload_too_large', 'rate_limited', 'internal_error'], { apiKey: false, perIp: true }),
      },
    },
  ];
}

function legacy(): Operation[] {
  // Limited per client address (no key): the rate-limit headers on every answer, 429 rate_limited.
  const cached = ['Cache-Control', ...rateHeaders] as const;
  const common = { tag: 'legacy' as const, apiKey: false, method: 'get' as const };
  const failures = (codes: ErrorCode[]) => errors([...codes, 'rate_limited', 'internal_error'], { apiKey: false, perIp: true });
  return [
    {
      ...common,
      path: '/api/v1/x402/stats',
      operationId: 'legacyX402Stats',
      summary: 'x402 payment statistics (legacy)',
      description: 'Wallets with x402 candidate payments in the newest scoring run. Replaced by GET /v1/stats.',
      request: {},
      responses: { 200: ok('Statistics (Cache-Control: public, max-age=300).', s.legacyX402Stats, cached), ...failures([]) },
    },
    {
      ...common,
      path: '/api/v1/erc8004/stats',
      operationId: 'legacyErc8004Stats',
      summary: 'ERC-8004 agent statistics (legacy)',
      description: 'Registered agents of the newest scoring run and the scoring weights. Replaced by GET /v1/stats.',
      request: {},
      responses: { 200: ok('Statistics (Cache-Control: public, max-age=300).', s.legacyErc8004Stats, cached), ...failures([]) },
    },
    {
      ...common,
      path: '/api/v1/x402/identified',
      operationId: 'legacyX402Identified',
      summary: 'x402 wallets identified as ERC-8004 agents (legacy)',
      description:
        'Payment addresses of registered agents with candidate payments, one entry per (chain, address), score descending. score and grade are the address\'s top-level score (as browse and the lookup show it); the activity fields are that chain\'s.',
      request: { query: identifiedQuerySchema },
      responses: { 200: ok('Identified wallets (Cache-Control: public, max-age=300).', s.legacyIdentified, cached), ...failures(['bad_request']) },
    },
    {
      ...common,
      path: '/api/v1/x402/browse',
      operationId: 'legacyX402Browse',
      summary: 'Browse x402 wallets (legacy)',
      description: 'Wallets with x402 payments scoring 25 or more, score descending, filtered and paged by offset.',
      request: { query: browseQuerySchema },
      responses: { 200: ok('A page of wallets (Cache-Control: public, max-age=300).', s.legacyBrowse, cached), ...failures(['bad_request']) },
    },
  ];
}

// Response bodies of the public API as zod schemas. Handlers build their bodies in SQL and plain
// objects, so these describe them rather than produce them; the OpenAPI document is generated from
// them (api/openapi/document.ts) and test/openapi.test.ts parses real responses of a running
// server with them, so a field added, removed or retyped in a handler fails that test until the
// schema here says the same. Objects are strict for that reason: an undeclared field is an error.
import { z } from 'zod';
import { errorStatus, type ErrorCode } from '../errors.ts';
import { entitlementNames, planNames } from '../plans.ts';
import { dataSemantics } from '../reputation/record.ts';
import { gradeOrder } from '../reputation/view.ts';

const grade = z.enum(['A', 'B', 'C', 'D', 'F']).meta({ description: 'A 90-100, B 75-89, C 50-74, D 25-49, F 0-24' });
const isoTime = z.string().meta({ description: 'ISO-8601 UTC time', examples: ['2025-11-03T10:15:00Z'] });
const count = z.number().int().min(0);
const score100 = z.number().min(0).max(100);
const entityType = z.enum(['agent', 'service', 'hybrid', 'wallet', 'unknown']);
const metadataQuality = z.enum(['real', 'placeholder', 'unknown']);
const gradeCounts = z.strictObject({ A: count, B: count, C: count, D: count, F: count });
const countsByName = z.record(z.string(), count);
const verificationLevel = z
  .enum(['none', 'wallet_claimed', 'kyc_verified'])
  .meta({ description: 'how strongly the address is tied to a person, now: kyc_verified (a verified operator, screened clear), wallet_claimed (an account signed a challenge with it), none' });

// ---- 2.7 reputation record -------------------------------------------------------------------

const scoreSummary = z.strictObject({
  value: score100.nullable().meta({ description: 'null while known_unscored' }),
  grade: grade.nullable(),
  scored_at: isoTime.nullable().meta({ description: 'the newest scoring run; null while known_unscored' }),
  status: z.enum(['scored', 'stale', 'known_unscored']).meta({ description: 'scored until the newest run is older than the stale limit (STALE_AFTER_SECONDS, 24 h by default), then stale' }),
  version: z.string().meta({ description: 'scoring model version', examples: ['v1'] }),
});

const chainRecordFree = z.strictObject({
  chain: z.string(),
  score: scoreSummary,
  classification: z.strictObject({ entity_type: entityType }),
});

const dimensions = z.strictObject({ identity: score100, activity: score100, capability: score100, reach: score100, trust: score100 });

const chainRecordPaid = z.strictObject({
  chain: z.string(),
  score: scoreSummary.extend({ confidence: z.number().min(0).max(1), dimensions }),
  classification: z.strictObject({
    entity_type: entityType,
    confidence: z.number().min(0).max(1),
    is_known: z.boolean(),
    is_known_erc8004_agent: z.boolean(),
    has_candidate_payment_activity: z.boolean(),
    has_verified_payment_activity: z.boolean(),
    reasons: z.array(z.string()),
  }),
  identity: z.strictObject({ ens_name: z.string().nullable(), website_url: z.string().nullable(), github_url: z.string().nullable() }),
  activity: z.strictObject({
    total_candidate_transactions: count,
    total_verified_transactions: count,
    as_candidate_payer: count,
    as_candidate_payee: count,
    as_verified_payer: count,
    as_verified_payee: count,
    counterparties_count: count,
    active_days: count,
    active_months: count,
    first_candidate_tx_at: isoTime.nullable(),
    last_candidate_tx_at: isoTime.nullable(),
    first_verified_tx_at: isoTime.nullable(),
    last_verified_tx_at: isoTime.nullable(),
  }),
  evidence_summary: z.strictObject({
    metadata_kind: z.string().nullable(),
    has_a2a_agent_card: z.boolean().nullable(),
    website_url: z.string().nullable(),
    website_reachable: z.boolean().nullable(),
    website_mentions_mcp: z.boolean().nullable(),
    website_mentions_x402: z.boolean().nullable(),
    github_url: z.string().nullable(),
    github_stars: count.nullable(),
  }),
});

const relatedAgent = z.strictObject({ token_id: count, chain: z.string(), name: z.string().nullable(), score: score100, grade });

const recordCommon = {
  score: scoreSummary.meta({ description: 'the operator score when the address owns agents, else its best chain' }),
  verification_level: verificationLevel,
  agents: z.array(relatedAgent).meta({ description: 'agents the address owns or is paid for' }),
  data_semantics: z.literal(dataSemantics),
  caveats: z.array(z.string()),
  updated_at: isoTime.nullable(),
};

export const reputationRecordFree = z
  .strictObject({
    ...recordCommon,
    chains: z.array(chainRecordFree),
    operator_score: z.strictObject({ score: score100, grade }).optional().meta({ description: 'only when the address owns registered agents' }),
  })
  .meta({ description: 'The 2.7 record as the free plan sees it (redacted).' });

export const reputationRecordPaid = z
  .strictObject({
    subject: z.strictObject({ address: z.string(), chains: z.array(z.string()) }),
    ...recordCommon,
    chains: z.array(chainRecordPaid).meta({ description: 'best chain first' }),
    operator_score: z
      .strictObject({ score: score100, grade, agent_count: count, chains_active: z.array(z.string()) })
      .optional()
      .meta({ description: 'only when the address owns registered agents' }),
    reputation: z
      .strictObject({
        feedback_count: count,
        client_count: count,
        trust_avg: z.number().nullable().meta({ description: 'average rating of the trust tags, 0-100; null when no live entry has one' }),
        uptime_avg: z.number().nullable().meta({ description: 'average rating of uptime and reachable, 0-100; null when no live entry has one' }),
        activity_avg: z.number().nullable().meta({ description: 'average rating of the activity tags, 0-100; null when no live entry has one' }),
        last_feedback_at: isoTime.nullable(),
      })
      .optional()
      .meta({ description: 'only when ERC-8004 feedback exists for its agents' }),
  })
  .meta({ description: 'The complete 2.7 record (paid plans).' });

export const reputationRecord = z
  .union([reputationRecordPaid, reputationRecordFree])
  .meta({ description: 'Spec 2.7: the complete record on paid plans, the redacted one on free.' });

// ---- 2.8 view variant ------------------------------------------------------------------------

const policy = z.strictObject({ min_grade: z.enum(gradeOrder), min_transactions: count });

export const reputationViewSummary = z
  .strictObject({
    address: z.string(),
    model_version: z.string(),
    computed_at: isoTime.nullable().meta({ description: 'the newest scoring run; null (as score, grade and data_through.chain) for an address known to the index but not scored yet' }),
    data_through: z.strictObject({ chain: z.string().nullable(), block: count.nullable() }),
    score: score100.nullable(),
    grade: grade.nullable(),
    preview: z.strictObject({ allow_hint: z.boolean(), grade_hint: grade.nullable() }),
    highlights: z.strictObject({
      total_transactions: count,
      unique_counterparties: count,
      total_volume_usdc: z.number().min(0),
      last_seen: isoTime.nullable(),
      tenure_days: count,
    }),
    cache: z.strictObject({ ttl_seconds: count }),
  })
  .meta({ description: 'Spec 2.8, view=summary (every plan).' });

const factor = <R extends z.ZodRawShape>(raw: R) => z.strictObject({ score: score100, weight: z.number().min(0).max(1), raw: z.strictObject(raw) });

export const reputationViewFull = reputationViewSummary
  .extend({
    decision: z.strictObject({
      allow: z.boolean(),
      reasons: z.array(
        z.enum([
          'sufficient_transaction_history',
          'recent_activity',
          'counterparty_diversity_ok',
          'insufficient_activity',
          'low_diversity',
          'stale_activity',
          'grade_below_threshold',
          'below_min_transactions',
        ]),
      ),
      policy,
    }),
    factors: z.strictObject({
      volume: factor({ total_volume_usdc: z.number().min(0), total_transactions: count }),
      diversity: factor({ unique_counterparties: count }),
      consistency: factor({ active_days: count, active_months: count }),
      recency: factor({ last_seen: isoTime.nullable(), days_since_last_seen: count.nullable() }),
      tenure: factor({ first_seen: isoTime.nullable(), tenure_days: count }),
    }),
    metrics: z.strictObject({
      total_transactions: count,
      unique_counterparties: count,
      total_volume_usdc: z.number().min(0),
      first_seen: isoTime.nullable(),
      last_seen: isoTime.nullable(),
      avg_latency_ms: z.number().nullable(),
    }),
    identity: z
      .strictObject({
        ens_name: z.string().nullable(),
        registered_agent: z.boolean(),
        chains_registered: z.array(z.string()),
        endpoint_status: z.enum(['reachable', 'unreachable', 'unknown']),
        github_repo: z.string().nullable(),
        verification_level: verificationLevel,
      })
      .nullable()
      .meta({ description: 'null only for an address that registered no ERC-8004 agent and is tied to no person (verification_level none)' }),
    attestation: z.strictObject({ status: z.literal('none') }),
    billing: z.strictObject({ tier: z.enum(planNames) }),
  })
  .meta({ description: 'Spec 2.8, view=full (paid plans): the summary plus the decision under the policy.' });

export const reputationView = z.union([reputationViewFull, reputationViewSummary]).meta({ description: 'Spec 2.8: full when view=full, else summary.' });

/** GET /v1/reputation/{address}: the record, or the view variant when a view parameter is given. */
export const reputationLookup = z.union([reputationRecord, reputationView]);

// ---- errors (spec 7.1) -----------------------------------------------------------------------

/** The 7.1 error object with `code` limited to `codes` (each response documents its own), and the extra fields those codes carry. */
export function errorDetail(codes: readonly ErrorCode[]) {
  const has = (code: ErrorCode) => codes.includes(code);
  return z.strictObject({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    ...(has('signup_required') ? { signup_url: z.string().optional().meta({ description: 'signup_required: where to get a key' }) } : {}),
    ...(has('unknown_address') ? { can_assess: z.literal(true).optional().meta({ description: 'unknown_address: an assessment (spec 4.2; not served by this version) could score the address' }) } : {}),
    ...(has('token_expired')
      ? {
          session_id: z.string().optional().meta({ description: 'token_expired on assess: a session to verify again (sess_…)' }),
          poll_secret: z.string().optional().meta({ description: 'token_expired on assess: its poll secret, for the buyer agent' }),
          verify_url: z.string().optional(),
          poll_url: z.string().optional(),
          expires_at: z.string().optional(),
        }
      : {}),
    ...(has('quota_exceeded')
      ? { agent_instructions: z.strictObject({ action: z.string(), steps: z.array(z.string()), user_message: z.string() }).optional().meta({ description: 'quota_exceeded on assess: what a buyer agent should do (do not retry)' }) }
      : {}),
    ...(has('payment_required')
      ? {
          plan: z.enum(planNames).optional().meta({ description: "payment_required: the caller's plan" }),
          entitlement: z.enum(entitlementNames).optional().meta({ description: 'payment_required: what the plan lacks' }),
        }
      : {}),
  });
}

export function errorBody(codes: readonly ErrorCode[]) {
  return z.strictObject({ error: errorDetail(codes) });
}

/** Every error code the API can send, with its status: the component the per-route bodies narrow. */
export const apiError = errorBody(Object.keys(errorStatus) as ErrorCode[]).meta({ description: 'Spec 7.1 error format.' });

// ---- batch -----------------------------------------------------------------------------------

export const batchResponse = z.strictObject({
  count,
  results: z
    .array(
      z.union([
        z.strictObject({ address: z.string(), status: z.literal(200), record: reputationRecord }),
        z.strictObject({ address: z.string(), status: z.number().int(), error: errorDetail(['invalid_address', 'unknown_address']) }),
      ]),
    )
    .meta({ description: 'one per requested address, in request order: its record, or the error a single lookup would give' }),
});

// ---- stats -----------------------------------------------------------------------------------

export const statsV2 = z.strictObject({
  version: z.literal('v2'),
  as_of_time: isoTime.nullable().meta({ description: 'the newest scoring run; null before the first' }),
  data_semantics: z.literal(dataSemantics),
  erc8004: z.strictObject({
    known_agents: count,
    by_chain: countsByName,
    metadata_quality_distribution: z.strictObject({ real: count, placeholder: count, unknown: count }),
  }),
  reputation: z.strictObject({
    total_addresses: count,
    scored_addresses: count,
    entity_distribution: z.strictObject({ agent: count, service: count, wallet: count, hybrid: count, unknown: count }),
    score_distribution: gradeCounts,
  }),
  payments: z.strictObject({
    addresses_with_candidate_payment_activity: count,
    addresses_with_verified_payment_activity: count,
    total_candidate_transactions: count,
    total_verified_transactions: count,
    verification_status_summary: z.strictObject({ candidate: count, verified: count }),
  }),
  caveats: z.array(z.string()),
});

// ---- agents (2.9) ----------------------------------------------------------------------------

export const agentItem = z.strictObject({
  chain: z.string(),
  registry: z.string(),
  agent_id: z.string().regex(/^\d+$/).meta({ description: 'ERC-8004 token id (decimal string: may exceed 2^53)' }),
  name: z.string().nullable(),
  description: z.string().nullable(),
  owner: z.string(),
  agent_wallet: z.string().nullable(),
  payment_address: z.string().meta({ description: 'agent_wallet when set, else owner' }),
  agent_uri: z.string().nullable(),
  metadata_quality: metadataQuality,
  has_endpoint: z.boolean(),
  github_url: z.string().nullable(),
  registered_at: isoTime.nullable(),
  agents_sharing_owner: z.number().int().min(1).meta({ description: 'agents on the chain with the same payment address, this one included; above 1 they share payment data' }),
  score: score100,
  grade,
  confidence: z.number().min(0).max(1),
  entity_type: entityType,
  has_candidate_payment_activity: z.boolean(),
  has_verified_payment_activity: z.boolean(),
});

export const agentList = z.strictObject({
  items: z.array(agentItem),
  next_cursor: z.string().nullable().meta({ description: 'pass as cursor for the next page; null on the last' }),
  count: count.meta({ description: 'total matching the filters' }),
  version: z.literal('v1'),
});

// ---- legacy /api/v1 --------------------------------------------------------------------------

export const legacyX402Stats = z.strictObject({
  total_wallets: count,
  distribution: gradeCounts,
  avg_score: z.number().nullable(),
  max_score: z.number().nullable(),
  min_score: z.number().nullable(),
  wallets_as_payer: count,
  wallets_as_payee: count,
  wallets_both_roles: count,
  total_transactions: count,
  roles: z.strictObject({ agent: count, hybrid: count, service: count }),
  identified_agents: count,
  data_source: z.string(),
  version: z.literal('v1'),
});

const gradeShare = z.strictObject({ count, pct: z.number().min(0).max(100) });

export const legacyErc8004Stats = z.strictObject({
  total_agents: count,
  average_score: z.number().nullable(),
  max_score: z.number().nullable(),
  min_score: z.number().nullable(),
  grade_distribution: z.strictObject({ A: gradeShare, B: gradeShare, C: gradeShare, D: gradeShare, F: gradeShare }),
  chains: countsByName,
  scoring: z.strictObject({
    weights: z.strictObject({ identity: z.number(), activity: z.number(), capability: z.number(), reach: z.number(), trust: z.number() }),
    version: z.string(),
    dimensions: z.array(z.string()),
  }),
});

const legacyWallet = z.strictObject({
  wallet: z.string(),
  score: score100,
  grade,
  role: z.enum(['agent', 'service', 'hybrid', 'wallet']),
  total_txns: count,
  as_payer: count,
  as_payee: count,
  active_months: count,
  name: z.string().nullable(),
  first_seen: isoTime.nullable(),
  last_seen: isoTime.nullable(),
  volume_usdc: z.number().min(0),
  counterparties: count,
});

export const legacyIdentified = z.strictObject({
  total: count,
  wallets: z.array(legacyWallet.extend({ erc8004_chain: z.string(), erc8004_token_id: z.string().nullable() })),
});

export const legacyBrowse = z.strictObject({
  total: count,
  offset: count,
  limit: count,
  wallets: z.array(legacyWallet).meta({ description: 'score descending' }),
});

// ---- service endpoints -----------------------------------------------------------------------

export const health = z.strictObject({
  status: z.enum(['ok', 'degraded', 'unhealthy']).meta({
    description: 'ok; degraded (200): Redis down, no scoring run yet, or the newest run older than the stale limit (24 h by default); unhealthy (503): the database does not answer',
  }),
  version: z.literal('v1'),
  service_url: z.url().optional().meta({ description: "the service's public address (PUBLIC_BASE_URL): where the gate library sends agents (spec 2.5)" }),
  database: z.union([z.strictObject({ ok: z.literal(true), latency_ms: count }), z.strictObject({ ok: z.literal(false), error: z.string() })]),
  redis: z.union([
    z.strictObject({ configured: z.literal(false) }),
    z.strictObject({ configured: z.literal(true), ok: z.boolean(), latency_ms: count.optional(), error: z.string().optional() }),
  ]),
  scoring: z.strictObject({
    last_run_id: count.nullable(),
    last_scored_at: isoTime.nullable(),
    age_seconds: count.nullable(),
    model_version: z.string(),
    last_run_kind: z.string().nullable(),
    stale: z.boolean().nullable(),
  }),
  uptime_seconds: count,
  checked_at: isoTime,
});

export const signingKey = z.strictObject({
  keys: z.array(
    z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') }),
  ),
  key_id: z.string().meta({ description: 'RFC 7638 thumbprint; equals X-Signature-Key-Id' }),
  algorithm: z.literal('Ed25519'),
  public_key_pem: z.string(),
  headers: z.strictObject({ signature: z.string(), timestamp: z.string(), key_id: z.string() }),
  signed_message: z.string(),
});

export const signup = z.strictObject({ message: z.string(), plans: z.array(z.enum(planNames)) });

// ---- identity: verification sessions (spec 2.3, 2.5, 2.6, 3.1) -------------------------------

const userMessage = z.string().meta({ description: 'a sentence the agent can show its user as it is' });
const nextStepsOf = <A extends string, F extends z.ZodRawShape>(action: A, fields: F) => z.strictObject({ action: z.literal(action), ...fields });

const deliverVerifyUrlAndPoll = nextStepsOf('deliver_verify_url_and_poll', {
  poll_interval_seconds: z.literal(5),
  poll_secret_header: z.literal('X-Poll-Secret'),
  steps: z.array(z.string()),
  user_message: userMessage,
});

export const agentMemory = z
  .strictObject({
    pattern_summary: z.string(),
    identity_check_endpoint: z.string().meta({ description: "this service's own public address (PUBLIC_BASE_URL), never a merchant's" }),
    identity_paths: z.strictObject({
      operator_token: z.strictObject({ header: z.literal('X-Operator-Token'), use: z.string() }),
      wallet: z.strictObject({ header: z.literal('X-Wallet-Address'), use: z.string() }),
    }),
    bootstrap: z.strictObject({
      on_denial: z.string(),
      give_user: z.literal('verify_url'),
      poll: z.string(),
      poll_secret_header: z.literal('X-Poll-Secret'),
      poll_interval_seconds: z.literal(5),
    }),
    do_not_persist_in_memory: z.array(z.enum(['operator_token', 'poll_secret', 'refresh_token'])),
    persist_in_credential_store: z.array(z.enum(['operator_token', 'refresh_token'])),
  })
  .meta({ description: 'Spec 2.5: what an agent with long-term memory may keep (the pattern), and the secrets it must not.' });

const sandboxMark = z.literal(true).optional().meta({ description: 'present (true) when the sandbox KYC provider verifies: no identity document is checked' });

export const sessionCreated = z.strictObject({
  session_id: z.string().meta({ description: 'sess_…; the only thing verify_url and poll_url carry' }),
  status: z.literal('pending'),
  test: sandboxMark,
  poll_secret: z.string().meta({ description: 'pls_…; shown once; send it as X-Poll-Secret, never in a URL' }),
  verify_url: z.string().meta({ description: 'the page to give the user' }),
  poll_url: z.string(),
  expires_at: isoTime.meta({ description: 'one hour after creation' }),
  next_steps: deliverVerifyUrlAndPoll,
  agent_memory: agentMemory,
});

const polled = <S extends string, F extends z.ZodRawShape>(status: S, fields: F) =>
  z.strictObject({ session_id: z.string(), status: z.literal(status), test: sandboxMark, ...fields });

export const sessionPoll = z
  .union([
    polled('pending', {
      expires_at: isoTime,
      retry_after_seconds: z.literal(5),
      next_steps: nextStepsOf('continue_polling', { poll_interval_seconds: z.literal(5), eta_message: z.string() }),
    }),
    polled('verified', {
      operator_token: z.string().meta({ description: 'opc_…; in this one answer only: store it in a credential store' }),
      completed_at: isoTime,
      token_ttl_seconds: z.literal(86400),
      token_expires_at: isoTime,
      refresh_token: z.string().meta({ description: 'prt_…; the login of a client: exchange it at POST /v1/tokens/refresh for a fresh pair once the operator token expired (single use, rotating)' }),
      refresh_token_expires_at: isoTime.meta({ description: '90 days after this login, whatever the rotations' }),
      next_steps: nextStepsOf('retry_merchant_request_with_operator_token', { header_name: z.literal('X-Operator-Token'), user_message: userMessage }),
    }),
    polled('consumed', {
      completed_at: isoTime,
      next_steps: nextStepsOf('use_stored_operator_token', { header_name: z.literal('X-Operator-Token'), user_message: userMessage }),
    }),
    polled('expired', { expires_at: isoTime, next_steps: nextStepsOf('create_new_session', { user_message: userMessage }) }),
    polled('failed', {
      failure_code: z.string().optional().meta({ description: "the vendor's reason, e.g. document_unverified_other, selfie_mismatch" }),
      next_steps: nextStepsOf('verification_failed', {
        user_message: userMessage,
        retry_until: isoTime.optional().meta({ description: 'the user may try again on the same page until then (keep polling)' }),
        poll_interval_seconds: z.literal(5).optional(),
      }),
    }),
    polled('flagged', {
      next_steps: nextStepsOf('contact_support', {
        support_email: z.string(),
        support_subject: z.string(),
        user_message: userMessage,
        poll_interval_seconds: z.literal(300).meta({ description: 'a person reviews: poll this seldom; once cleared, the next poll delivers the token (for 24 hours)' }),
      }),
    }),
  ])
  .meta({ description: 'Spec 2.3 / 3.1: the session at the time of the poll; next_steps.action says what to do.' });

// ---- identity: wallet claims (spec 2.7 verification_level, 3.4) -------------------------------

export const walletChallenge = z.strictObject({
  nonce: z.string().meta({ description: 'The one-time nonce the message carries (32 letters and digits).' }),
  message: z.string().meta({
    description:
      'The exact text to sign: an EIP-4361 (Sign-In with Ethereum) message for evm, a Sign-In With Solana message for solana; domain and URI are this service, the statement names the account.',
  }),
  expires_at: isoTime.meta({ description: '10 minutes after issue: claim before then' }),
});

export const walletClaimed = z.strictObject({
  network: z.enum(['evm', 'solana']),
  address: z.string().meta({ description: 'The claimed wallet: EVM lowercased, Solana verbatim.' }),
  claimed: z.literal(true),
  claimed_at: isoTime.meta({ description: "when this account's claim of the wallet was first recorded (a repeated claim keeps it)" }),
  verification_level: z.enum(['wallet_claimed', 'kyc_verified']).meta({
    description: "Spec 2.7: the wallet's level now: kyc_verified when the account holder's identity is verified and screened clear, else wallet_claimed.",
  }),
});

// ---- identity: credentials, wallet capture, refresh (spec 2.1, 2.2, 4.5-4.8) ------------------

export const accountVerification = z
  .union([
    z.strictObject({ kyc_status: z.literal('none') }),
    z.strictObject({
      kyc_status: z.literal('verified'),
      kyc_verified_at: isoTime,
      jurisdiction: z.string().meta({ description: 'ISO 3166-1 alpha-2 of the identity document' }),
      age_verified: z.boolean(),
      age_bracket: z.enum(['18+', '21+']).optional().meta({ description: 'absent when under 18 (age_verified false)' }),
      sanctions_clear: z.boolean().nullable().meta({ description: 'true: screened clear within the freshness window (SANCTIONS_FRESHNESS_DAYS, 90); false: a listing matched; null: never screened or stale' }),
      sanctions_checked_at: isoTime.nullable(),
      operator_type: z.literal('individual'),
    }),
  ])
  .meta({ description: "Spec 2.2: the account holder's own verification; only kyc_status none before it." });

const credentialListed = z.strictObject({
  id: z.string().meta({ description: 'UUID, for DELETE /v1/credentials/{id}' }),
  prefix: z.string().meta({ description: 'opc_ and the next four characters' }),
  label: z.string().nullable(),
  expires_at: isoTime,
  last_used_at: isoTime.nullable(),
  created_at: isoTime,
});

export const credentialCreated = z.strictObject({
  id: z.string(),
  credential: z.string().meta({ description: 'opc_…; shown in this answer only' }),
  prefix: z.string(),
  label: z.string().nullable(),
  expires_at: isoTime,
  created_at: isoTime,
  agent_memory: agentMemory,
});

export const credentialList = z.strictObject({ account_verification: accountVerification, credentials: z.array(credentialListed).meta({ description: 'active ones only (not expired, not revoked), newest first' }) });

export const credentialRevoked = z.strictObject({ id: z.string(), revoked: z.literal(true) });

export const kycRequiredBody = z.strictObject({
  error: errorDetail(['kyc_required']),
  verify_url: z.string().optional().meta({ description: "the account holder's own verification (absent while a flagged one waits for a review)" }),
  next_steps: z.union([
    nextStepsOf('complete_kyc_then_retry', { user_message: userMessage }),
    nextStepsOf('contact_support', { support_email: z.string(), support_subject: z.string(), user_message: userMessage }),
  ]),
});

export const walletCaptured = z.strictObject({
  associated: z.literal(true),
  first_seen: z.boolean().meta({ description: 'true the first time this (credential, wallet, network) is reported' }),
  deduped: z.literal(true).optional().meta({ description: 'the idempotency key was that of the newest capture of the tuple: nothing changed' }),
});

export const tokenRefreshed = z.strictObject({
  operator_token: z.string().meta({ description: 'opc_…, a new access token (send it as X-Operator-Token)' }),
  token_ttl_seconds: z.literal(86400),
  expires_at: isoTime,
  refresh_token: z.string().meta({ description: 'prt_…, the next one: the one sent is spent' }),
  refresh_token_expires_at: isoTime.meta({ description: '90 days after the login, whatever the rotations' }),
});

// ---- assess (spec 2.4, 4.2) ----------------------------------------------------------------------

const explanationItem = z.strictObject({
  rule: z.enum(['require_kyc', 'require_sanctions_clear', 'min_age', 'blocked_jurisdictions', 'allowed_jurisdictions']),
  passed: z.boolean(),
  required: z.string(),
  actual: z.string().meta({ description: 'require_sanctions_clear: clear | flagged | unscreened | none; require_kyc: verified | none | pending | failed; min_age: 21+ | 18+ | under 18 | unknown; jurisdictions: the code or unknown' }),
  message: z.string(),
  how_to_remedy: z.string().nullable().meta({ description: 'null when the rule passed or cannot be fixed (age, jurisdiction, a sanctions listing)' }),
});

const agentInstructionsText = z.string().meta({ description: 'a JSON object {action, steps, user_message} as a string, to spread into a gate\'s 403 body' });

const signerMatchBody = z.strictObject({
  kind: z.enum(['pass', 'wallet_signer_mismatch', 'wallet_auth_requires_wallet_signing']),
  claimed_operator: z.string().nullable(),
  signer_operator: z.string().nullable(),
  expected_signer: z.string().optional(),
  actual_signer: z.string().optional(),
  linked_wallets: z.array(z.string()).optional(),
  agent_instructions: agentInstructionsText.optional(),
});

const signerSanctionsBody = z.union([
  z.strictObject({ status: z.literal('unavailable') }),
  z.strictObject({
    status: z.literal('clear').meta({ description: 'the lookup answered' }),
    sanctioned: z.literal(true).optional().meta({ description: 'present on a hit only' }),
    ofac_label: z.string().optional(),
    sdn_uid: z.string().optional(),
    listed_at: z.string().nullable().optional(),
  }),
]);

export const assessAnswer = z
  .strictObject({
    decision: z.enum(['allow', 'deny']),
    decision_reasons: z.array(z.enum(['no_policy_applied', 'kyc_required', 'kyc_pending', 'kyc_failed', 'sanctions_flagged', 'sanctions_check_unavailable', 'age_insufficient', 'jurisdiction_restricted'])),
    policy_result: z
      .strictObject({ satisfied: z.boolean(), rules_evaluated: count, rules_failed: z.array(z.string()) })
      .optional()
      .meta({ description: 'with a policy: whether it is satisfied, how many rules it set, which failed' }),
    explanation: z.array(explanationItem).optional().meta({ description: 'with a policy: one element per rule it sets' }),
    verify_url: z.string().optional().meta({ description: 'on denials a verification can fix (kyc_required, kyc_failed)' }),
    verification_session: z
      .strictObject({ session_id: z.string(), poll_secret: z.string(), verify_url: z.string(), poll_url: z.string(), expires_at: isoTime })
      .optional()
      .meta({ description: "the session behind verify_url: a gate hands these to the buyer agent (identity_verification_required)" }),
    operator_verification: accountVerification.meta({ description: "the derived facts of the identity's verified operator (spec 2.2's shape); kyc_status none without one (live mode)" }).optional(),
    identity_method: z.enum(['wallet', 'operator_token']),
    credential_expires_at: z.string().optional().meta({ description: 'operator_token mode, live: when the token expires (a gate keeps an allow no longer)' }),
    resolved_operator: z.string().optional().meta({ description: 'wallet mode: the canonical wallet of its person (earliest claimed, else lexically smallest captured); the address itself when it is tied to nobody' }),
    linked_wallets: z.array(z.string()).optional().meta({ description: 'wallet mode: every wallet of its person' }),
    signer_match: signerMatchBody.optional(),
    signer_sanctions: signerSanctionsBody.optional(),
    test: z.literal(true).optional(),
  })
  .meta({ description: 'Spec 2.4: identity data only (reputation scores come from GET /v1/reputation).' });

export const webhookAck = z.strictObject({
  received: z.literal(true),
  applied: z.boolean().meta({ description: 'false for a delivery that changed nothing (a redelivery, a replay, a finished or stale attempt, an event without a result)' }),
});

/** The document itself: checked in depth by the OpenAPI validator in the tests, not here. */
export const openApiDocument = z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

/** Named in components/schemas (and linked from /docs); everything else is inlined. */
export const namedSchemas = {
  ReputationRecord: reputationRecord,
  ReputationRecordPaid: reputationRecordPaid,
  ReputationRecordFree: reputationRecordFree,
  ReputationViewSummary: reputationViewSummary,
  ReputationViewFull: reputationViewFull,
  ReputationView: reputationView,
  Error: apiError,
  BatchResponse: batchResponse,
  Stats: statsV2,
  AgentItem: agentItem,
  AgentList: agentList,
  LegacyX402Stats: legacyX402Stats,
  LegacyErc8004Stats: legacyErc8004Stats,
  LegacyIdentified: legacyIdentified,
  LegacyBrowse: legacyBrowse,
  Health: health,
  SigningKey: signingKey,
  Signup: signup,
  SessionCreated: sessionCreated,
  SessionPoll: sessionPoll,
  AgentMemory: agentMemory,
  WalletChallenge: walletChallenge,
  WalletClaimed: walletClaimed,
} as const;

// POST /v1/assess, the call a merchant's gate makes on every paid request (spec 2.4, 4.2): who the
// identity is (a wallet, resolved through identity/wallets/directory.ts, or an operator token's
// operator, checked live), what the policy says of it (identity/assess/policy.ts), the signer
// checks (signer.ts), a verification session for a denial verifying can fix, and the audit record.
// What it reads is in the owner's memory, but for a wallet claimed by an account no verification
// backs (its holder's open verification is read); it writes nothing on its path (a denial's session
// is written when used, the audit record in batches).
import type { SanctionsLookup } from '../../pipeline/sanctions/lookup.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { accountVerification } from '../operators.ts';
import { accountVerificationState } from '../credentials.ts';
import { sessionTtlMs } from '../sessions.ts';
import type { DeferredSessions } from '../deferred-sessions.ts';
import { sessionUrls } from '../session-answers.ts';
import type { IdentityState } from '../state.ts';
import type { WalletNetwork, WalletResolution } from '../wallets/directory.ts';
import { policyHash, type AuditTrail } from './audit.ts';
import { operatorFacts, unverifiedFacts } from './facts.ts';
import { evaluatePolicy, resolvableReasons, type DenyReason, type IdentityFacts, type Policy } from './policy.ts';
import { signerMatch, signerSanctions, type Claimed, type Signer, type SignerMatch, type SignerSanctions } from './signer.ts';
import { testIdentities, testSessionId } from './test-mode.ts';

export type AssessIdentity = { kind: 'wallet'; network: WalletNetwork; address: string } | { kind: 'operator_token'; token: string };

export interface AssessRequest {
  identity: AssessIdentity;
  policy?: Policy;
  signer?: Signer;
  refresh?: boolean;
  test?: boolean;
}

export interface AssessDeps {
  store: Store;
  state: IdentityState;
  sanctions: SanctionsLookup;
  audit: AuditTrail;
  freshnessDays: number;
  sanctionsMaxAgeSeconds: number;
  kycProvider: string;
  serviceBaseUrl: () => string;
  /** A denial's sessions, minted without a write (identity/deferred-sessions.ts). */
  deferred: DeferredSessions;
  /** An unknown wallet gets a minimal entry and its scoring queued (spec 3.3); `refresh` rescores it. Never awaited by the answer. */
  indexWallet?: (address: string, refresh: boolean) => void;
}

export type AssessOutcome =
  | { kind: 'answer'; body: Record<string, unknown> }
  | { kind: 'invalid_test_address' }
  /** The token is none of ours: permanent, no session (spec 7.1). */
  | { kind: 'invalid_credential' }
  /** Expired or revoked: with a session to verify again (spec 7.1). */
  | { kind: 'token_expired'; session: Record<string, unknown> };

export async function assess(deps: AssessDeps, accountId: string, request: AssessRequest, context: { requestId: string; now: Date }): Promise<AssessOutcome> {
  return request.test ? assessTest(deps, request, context.now) : assessLive(deps, accountId, request, context);
}

async function assessLive(deps: AssessDeps, accountId: string, request: AssessRequest, context: { requestId: string; now: Date }): Promise<AssessOutcome> {
  const { state } = deps;
  const { now } = context;
  let claimed: Claimed;
  let facts: IdentityFacts;
  let operatorId: string | null;
  let resolution: WalletResolution | null = null;
  let auditIdentity: string;
  let tokenExpiresAt: Date | null = null;
  if (request.identity.kind === 'operator_token') {
    const verified = state.tokens.verify(request.identity.token, now);
    if (verified.kind !== 'active') {
      deps.audit.record({
        assessedAt: now,
        requestId: context.requestId,
        accountId,
        identityKind: 'operator_token',
        identity: verified.kind === 'expired' ? verified.token.id : 'unknown',
        operatorId: verified.kind === 'expired' ? verified.token.operatorId : null,
        decision: 'deny',
        reasons: [verified.kind === 'expired' ? 'token_expired' : 'invalid_credential'],
        policyHash: policyHash(request.policy),
        signerMatch: null,
        signerSanctions: null,
      });
      if (verified.kind === 'unknown') return { kind: 'invalid_credential' };
      return { kind: 'token_expired', session: mintSession(deps, accountId, now) };
    }
    state.tokens.markUsed(verified.token, now);
    tokenExpiresAt = verified.token.expiresAt;
    operatorId = state.wallets.operatorOf(verified.token);
    const operator = state.operators.get(operatorId);
    facts = operator ? operatorFacts(operator, now, deps.freshnessDays) : unverifiedFacts('none');
    claimed = { kind: 'operator_token', operatorId };
    auditIdentity = verified.token.id;
  } else {
    const { network, address } = request.identity;
    resolution = state.wallets.resolve(network, address);
    operatorId = resolution?.operatorId ?? null;
    const operator = operatorId ? state.operators.get(operatorId) : undefined;
    // A wallet claimed by an account no verification backs: its holder's verification may be under way.
    const holder = resolution?.group.startsWith('acct:') ? resolution.group.slice(5) : null;
    facts = operator ? operatorFacts(operator, now, deps.freshnessDays) : unverifiedFacts(holder ? await accountVerificationState(deps.store, holder, now) : 'none');
    claimed = { kind: 'wallet', network, address };
    auditIdentity = address;
    deps.indexWallet?.(address, request.refresh ?? false);
  }

  const judged = await judge(deps, facts, claimed, request);
  const session = fixableByVerifying(judged.reasons) ? mintSession(deps, accountId, now) : null;
  deps.audit.record({
    assessedAt: now,
    requestId: context.requestId,
    accountId,
    identityKind: request.identity.kind,
    identity: auditIdentity,
    operatorId,
    decision: judged.decision,
    reasons: judged.reasons,
    policyHash: policyHash(request.policy),
    signerMatch: judged.signerMatch?.kind ?? null,
    signerSanctions: judged.signerSanctions ? ('sanctioned' in judged.signerSanctions ? 'sanctioned' : judged.signerSanctions.status) : null,
  });
  const operator = operatorId ? state.operators.get(operatorId) ?? null : null;
  return {
    kind: 'answer',
    body: {
      ...judged.body,
      ...(session ? { verify_url: session.verify_url, verification_session: session } : {}),
      operator_verification: accountVerification(operator, now, deps.freshnessDays),
      identity_method: request.identity.kind,
      // A gate keeps an allow no longer than the token it rests on lives (gate/gate.ts).
      ...(tokenExpiresAt ? { credential_expires_at: tokenExpiresAt.toISOString() } : {}),
      ...(request.identity.kind === 'wallet'
        ? { resolved_operator: resolution?.resolvedOperator ?? request.identity.address, linked_wallets: resolution?.linkedWallets ?? [request.identity.address] }
        : {}),
    },
  };
}

/**
 * Test mode: the reserved addresses' fixed facts, the real policy engine and the real signer
 * checks (they only read); no token, no session, no audit record, no write of any kind.
 */
async function assessTest(deps: AssessDeps, request: AssessRequest, now: Date): Promise<AssessOutcome> {
  const fixture = request.identity.kind === 'wallet' ? testIdentities.get(request.identity.address) : undefined;
  if (!fixture || request.identity.kind !== 'wallet') return { kind: 'invalid_test_address' };
  const { network, address } = request.identity;
  const judged = await judge(deps, fixture.facts, { kind: 'wallet', network, address }, request);
  return {
    kind: 'answer',
    body: {
      ...judged.body,
      ...(fixableByVerifying(judged.reasons) ? { verify_url: sessionUrls(deps.serviceBaseUrl(), testSessionId).verifyUrl } : {}),
      operator_verification: fixtureVerification(fixture.facts, now),
      identity_method: 'wallet',
      resolved_operator: address,
      linked_wallets: [address],
      test: true,
    },
  };
}

interface Judged {
  decision: 'allow' | 'deny';
  reasons: string[];
  signerMatch?: SignerMatch;
  signerSanctions?: SignerSanctions;
  body: Record<string, unknown>;
}

// The policy's decision, then the signer checks: a listed signer denies for sanctions_flagged,
// a list that cannot answer for sanctions_check_unavailable (rule 3, no opt-out).
async function judge(deps: AssessDeps, facts: IdentityFacts, claimed: Claimed, request: AssessRequest): Promise<Judged> {
  const outcome = evaluatePolicy(facts, request.policy);
  let decision = outcome.decision;
  const reasons: string[] = [...outcome.reasons];
  let match: SignerMatch | undefined;
  let sanctions: SignerSanctions | undefined;
  if (request.signer) {
    match = signerMatch(deps.state.wallets, claimed, request.signer);
    if (request.signer.address !== null) {
      sanctions = await signerSanctions(deps.sanctions, { ...request.signer, address: request.signer.address }, deps.sanctionsMaxAgeSeconds);
      const denial = 'sanctioned' in sanctions ? 'sanctions_flagged' : sanctions.status === 'unavailable' ? 'sanctions_check_unavailable' : null;
      if (denial) {
        decision = 'deny';
        if (reasons[0] === 'no_policy_applied') reasons.length = 0;
        if (!reasons.includes(denial)) reasons.push(denial);
      }
    }
  }
  return {
    decision,
    reasons,
    signerMatch: match,
    signerSanctions: sanctions,
    body: {
      decision,
      decision_reasons: reasons,
      ...(outcome.policyResult ? { policy_result: outcome.policyResult } : {}),
      ...(outcome.explanation ? { explanation: outcome.explanation } : {}),
      ...(match ? { signer_match: match } : {}),
      ...(sanctions ? { signer_sanctions: sanctions } : {}),
    },
  };
}

/**
 * Spec 4.2: a verify_url only when verifying can fix the denial: a resolvable reason, and no reason
 * a verification cannot lift (a listed signer, an age, a jurisdiction stay whatever the person does).
 */
function fixableByVerifying(reasons: string[]): boolean {
  return reasons.some((r) => resolvableReasons.has(r as DenyReason)) && reasons.every((r) => fixableReasons.has(r));
}

const fixableReasons: ReadonlySet<string> = new Set([...resolvableReasons, 'kyc_pending']);

/**
 * Test mode's operator_verification: the reserved address's facts in spec 2.2's shape. A fixture has
 * no history, so it was verified and screened at the request's time (always within the window).
 */
function fixtureVerification(facts: IdentityFacts, now: Date): Record<string, unknown> {
  if (facts.verification !== 'verified') return { kyc_status: 'none' };
  return {
    kyc_status: 'verified',
    kyc_verified_at: now.toISOString(),
    jurisdiction: facts.jurisdiction,
    age_verified: facts.ageBracket !== null,
    ...(facts.ageBracket ? { age_bracket: facts.ageBracket } : {}),
    sanctions_clear: facts.sanctions === 'clear' ? true : facts.sanctions === 'flagged' ? false : null,
    sanctions_checked_at: facts.sanctions === 'clear' || facts.sanctions === 'flagged' ? now.toISOString() : null,
    operator_type: 'individual',
  };
}

// A session of the merchant's account for this identity's person to verify at (spec 4.2 rule 2:
// a verify_url for resolvable denials; 7.1: token_expired carries one): its secrets go to the gate,
// which hands them to the buyer agent. Each denial gets a session of its own, never one handed out
// before: a wallet in X-Wallet-Address is only a claim, and whoever holds an open session's poll
// secret collects the operator token of whoever verifies at its page (docs/decisions.md, assess).
// It is written once its page is used, not now (identity/deferred-sessions.ts).
function mintSession(deps: AssessDeps, accountId: string, now: Date): Record<string, unknown> {
  const { id, pollSecret } = deps.deferred.mint(accountId, now);
  const urls = sessionUrls(deps.serviceBaseUrl(), id);
  return { session_id: id, poll_secret: pollSecret, verify_url: urls.verifyUrl, poll_url: urls.pollUrl, expires_at: new Date(now.getTime() + sessionTtlMs).toISOString() };
}

// The policy engine of POST /v1/assess (spec 4.2 rules 1, 2 and 4; 2.4, 2.4.1): a pure function
// from what is known of an identity and a merchant's policy to a decision, its reasons and one
// explanation per rule. No I/O: identity/assess/assess.ts gathers the facts.
//
// Reasons a person can fix by verifying (kyc_required, kyc_pending, kyc_failed) are told apart
// from those they cannot (sanctions_flagged, age_insufficient, jurisdiction_restricted), which
// carry no remedy. Age and jurisdiction rules need a verified identity: before it, they fail for
// kyc_required (what is missing is a verification, not an age), and jurisdiction_restricted is
// only ever said of a verified person.

export interface Policy {
  require_kyc?: boolean;
  require_sanctions_clear?: boolean;
  min_age?: 18 | 21;
  blocked_jurisdictions?: string[];
  allowed_jurisdictions?: string[];
}

export const policyRules = ['require_kyc', 'require_sanctions_clear', 'min_age', 'blocked_jurisdictions', 'allowed_jurisdictions'] as const;
export type PolicyRule = (typeof policyRules)[number];

/** Where the identity's verification stands: none yet, one under way, the last one failed, or done. */
export type VerificationState = 'none' | 'pending' | 'failed' | 'verified';

/** Spec 2.4.1 for require_sanctions_clear: clear within the window, a hit, screened too long ago or never, no verification. */
export type SanctionsState = 'clear' | 'flagged' | 'unscreened' | 'none';

export interface IdentityFacts {
  verification: VerificationState;
  sanctions: SanctionsState;
  /** Verified identities only. */
  jurisdiction?: string;
  /** Verified identities only: 21+, 18+, or null under 18. */
  ageBracket?: '21+' | '18+' | null;
}

export type DenyReason =
  | 'kyc_required'
  | 'kyc_pending'
  | 'kyc_failed'
  | 'sanctions_flagged'
  | 'sanctions_check_unavailable'
  | 'age_insufficient'
  | 'jurisdiction_restricted';

/** Reasons a verification can resolve: a verify_url is offered for them (kyc_pending: one is under way). */
export const resolvableReasons: ReadonlySet<DenyReason> = new Set(['kyc_required', 'kyc_failed']);

export interface Explanation {
  rule: PolicyRule;
  passed: boolean;
  required: string;
  actual: string;
  message: string;
  how_to_remedy: string | null;
}

export interface PolicyOutcome {
  decision: 'allow' | 'deny';
  /** Every failed rule's reason, once each, in rule order; ['no_policy_applied'] without a policy. */
  reasons: (DenyReason | 'no_policy_applied')[];
  /** One element per rule the policy sets; absent without a policy. */
  explanation?: Explanation[];
  /** Absent without a policy. */
  policyResult?: { satisfied: boolean; rules_evaluated: number; rules_failed: PolicyRule[] };
}

const verifyRemedy = 'Complete identity verification at verify_url, then retry.';

/** Spec 4.2 rule 1: no policy, or a policy that sets no rule, is `allow` with `no_policy_applied`. */
export function evaluatePolicy(facts: IdentityFacts, policy: Policy | undefined): PolicyOutcome {
  const rules = policy ? policyRules.filter((rule) => isSet(policy, rule)) : [];
  if (!policy || rules.length === 0) return { decision: 'allow', reasons: ['no_policy_applied'] };
  const results = rules.map((rule) => evaluateRule(rule, facts, policy));
  const failed = results.filter((r) => !r.explanation.passed);
  const reasons = [...new Set(failed.map((r) => r.reason!))];
  return {
    decision: failed.length === 0 ? 'allow' : 'deny',
    reasons,
    explanation: results.map((r) => r.explanation),
    policyResult: { satisfied: failed.length === 0, rules_evaluated: results.length, rules_failed: failed.map((r) => r.explanation.rule) },
  };
}

function isSet(policy: Policy, rule: PolicyRule): boolean {
  const value = policy[rule];
  if (value === undefined || value === false) return false;
  // An empty blocklist blocks nothing; an empty allowlist allows nothing (it is a rule all the same).
  if (rule === 'blocked_jurisdictions') return (value as string[]).length > 0;
  return true;
}

interface RuleResult {
  explanation: Explanation;
  reason?: DenyReason;
}

function evaluateRule(rule: PolicyRule, facts: IdentityFacts, policy: Policy): RuleResult {
  switch (rule) {
    case 'require_kyc':
      return requireKyc(facts);
    case 'require_sanctions_clear':
      return requireSanctionsClear(facts);
    case 'min_age':
      return minAge(facts, policy.min_age!);
    case 'blocked_jurisdictions':
      return jurisdiction(rule, facts, policy.blocked_jurisdictions!, (code, list) => !list.includes(code), (list) => `not in ${list.join(', ')}`);
    case 'allowed_jurisdictions':
      return jurisdiction(rule, facts, policy.allowed_jurisdictions!, (code, list) => list.includes(code), (list) => (list.length === 0 ? 'none (the allowlist is empty)' : `one of ${list.join(', ')}`));
  }
}

/** The reason a rule that needs a verified identity fails for while there is none. */
function unverified(facts: IdentityFacts): { reason: DenyReason; remedy: string | null; message: string } {
  switch (facts.verification) {
    case 'pending':
      return { reason: 'kyc_pending', remedy: 'Wait for the identity verification under way to finish, then retry.', message: 'An identity verification is under way.' };
    case 'failed':
      return { reason: 'kyc_failed', remedy: 'Verify again at verify_url, then retry.', message: 'The last identity verification did not succeed.' };
    default:
      return { reason: 'kyc_required', remedy: verifyRemedy, message: 'No verified identity is behind this wallet or token.' };
  }
}

function pass(rule: PolicyRule, required: string, actual: string, message: string): RuleResult {
  return { explanation: { rule, passed: true, required, actual, message, how_to_remedy: null } };
}

function fail(rule: PolicyRule, required: string, actual: string, reason: DenyReason, message: string, remedy: string | null): RuleResult {
  return { explanation: { rule, passed: false, required, actual, message, how_to_remedy: remedy }, reason };
}

function requireKyc(facts: IdentityFacts): RuleResult {
  if (facts.verification === 'verified') return pass('require_kyc', 'verified', 'verified', 'The identity is verified.');
  const why = unverified(facts);
  return fail('require_kyc', 'verified', facts.verification, why.reason, why.message, why.remedy);
}

// Spec 4.2 rule 4: clear within the freshness window passes; a hit is sanctions_flagged (no remedy);
// screened too long ago, never screened, or no verification at all is kyc_required (a new
// verification screens the name again).
function requireSanctionsClear(facts: IdentityFacts): RuleResult {
  const rule = 'require_sanctions_clear';
  switch (facts.sanctions) {
    case 'clear':
      return pass(rule, 'clear', 'clear', 'The name was screened clear within the freshness window.');
    case 'flagged':
      return fail(rule, 'clear', 'flagged', 'sanctions_flagged', 'The name matched a sanctions listing.', null);
    case 'unscreened':
      return fail(rule, 'clear', 'unscreened', 'kyc_required', 'The name was not screened within the freshness window.', verifyRemedy);
    case 'none': {
      const why = unverified(facts);
      return fail(rule, 'clear', 'none', why.reason, why.message, why.remedy);
    }
  }
}

function minAge(facts: IdentityFacts, min: 18 | 21): RuleResult {
  const required = `${min}+`;
  if (facts.verification !== 'verified') {
    const why = unverified(facts);
    return fail('min_age', required, 'unknown', why.reason, why.message, why.remedy);
  }
  const bracket = facts.ageBracket ?? null;
  const age = bracket === '21+' ? 21 : bracket === '18+' ? 18 : 0;
  const actual = bracket ?? 'under 18';
  if (age >= min) return pass('min_age', required, actual, `The verified age bracket is ${actual}.`);
  return fail('min_age', required, actual, 'age_insufficient', `The verified age bracket is ${actual}, below ${required}.`, null);
}

function jurisdiction(
  rule: 'blocked_jurisdictions' | 'allowed_jurisdictions',
  facts: IdentityFacts,
  list: string[],
  allows: (code: string, list: string[]) => boolean,
  describe: (list: string[]) => string,
): RuleResult {
  const required = describe(list);
  if (facts.verification !== 'verified' || !facts.jurisdiction) {
    const why = unverified(facts);
    return fail(rule, required, 'unknown', why.reason, why.message, why.remedy);
  }
  const code = facts.jurisdiction;
  if (allows(code, list)) return pass(rule, required, code, `The verified jurisdiction is ${code}.`);
  return fail(rule, required, code, 'jurisdiction_restricted', `The verified jurisdiction ${code} is not allowed here.`, null);
}

// The policy engine of assess as a pure function (identity/assess/policy.ts): every reason code,
// every explanation.actual value, the freshness of a sanctions screening as facts give it,
// jurisdiction precedence, and properties over random facts and policies: adding a rule never
// turns a deny into an allow, an empty policy is no policy, one explanation per rule set.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evaluatePolicy, resolvableReasons, type IdentityFacts, type Policy } from '../identity/assess/policy.ts';
import { operatorFacts } from '../identity/assess/facts.ts';
import type { Operator } from '../identity/operators.ts';

const verified = (extra: Partial<IdentityFacts> = {}): IdentityFacts => ({ verification: 'verified', sanctions: 'clear', jurisdiction: 'US', ageBracket: '21+', ...extra });

describe('evaluatePolicy', () => {
  it('no policy, an empty one, or one whose rules are all off: allow with no_policy_applied, no explanation', () => {
    for (const policy of [undefined, {}, { require_kyc: false, require_sanctions_clear: false, blocked_jurisdictions: [] }]) {
      expect(evaluatePolicy({ verification: 'none', sanctions: 'none' }, policy)).toEqual({ decision: 'allow', reasons: ['no_policy_applied'] });
    }
  });

  it('a policy that passes: allow, no reasons, one explanation per rule, and its result', () => {
    const outcome = evaluatePolicy(verified(), { require_kyc: true, require_sanctions_clear: true, min_age: 21, blocked_jurisdictions: ['IR'], allowed_jurisdictions: ['US'] });
    expect(outcome.decision).toBe('allow');
    expect(outcome.reasons).toEqual([]);
    expect(outcome.explanation!.map((e) => [e.rule, e.passed, e.actual, e.how_to_remedy])).toEqual([
      ['require_kyc', true, 'verified', null],
      ['require_sanctions_clear', true, 'clear', null],
      ['min_age', true, '21+', null],
      ['blocked_jurisdictions', true, 'US', null],
      ['allowed_jurisdictions', true, 'US', null],
    ]);
    expect(outcome.policyResult).toEqual({ satisfied: true, rules_evaluated: 5, rules_failed: [] });
  });

  it.each([
    ['none', 'kyc_required'],
    ['pending', 'kyc_pending'],
    ['failed', 'kyc_failed'],
  ] as const)('require_kyc with verification %s: %s, with a remedy', (verification, reason) => {
    const outcome = evaluatePolicy({ verification, sanctions: 'none' }, { require_kyc: true });
    expect([outcome.decision, outcome.reasons]).toEqual(['deny', [reason]]);
    expect(outcome.explanation![0]).toMatchObject({ rule: 'require_kyc', passed: false, required: 'verified', actual: verification, how_to_remedy: expect.any(String) });
  });

  it.each([
    ['clear', verified(), 'allow', []],
    ['flagged', verified({ sanctions: 'flagged' }), 'deny', ['sanctions_flagged']],
    ['unscreened', verified({ sanctions: 'unscreened' }), 'deny', ['kyc_required']],
    ['none', { verification: 'none', sanctions: 'none' } as IdentityFacts, 'deny', ['kyc_required']],
  ] as const)('require_sanctions_clear: actual %s', (actual, facts, decision, reasons) => {
    const outcome = evaluatePolicy(facts, { require_sanctions_clear: true });
    expect([outcome.decision, outcome.reasons, outcome.explanation![0]!.actual]).toEqual([decision, reasons, actual]);
    // A hit has no remedy; a screening to do again or at all has one.
    expect(outcome.explanation![0]!.how_to_remedy === null).toBe(actual === 'clear' || actual === 'flagged');
  });

  it('min_age against the age bracket: age_insufficient without a remedy; kyc_required before a verification', () => {
    expect(evaluatePolicy(verified({ ageBracket: '18+' }), { min_age: 21 })).toMatchObject({ decision: 'deny', reasons: ['age_insufficient'] });
    expect(evaluatePolicy(verified({ ageBracket: '18+' }), { min_age: 21 }).explanation![0]).toMatchObject({ required: '21+', actual: '18+', how_to_remedy: null });
    expect(evaluatePolicy(verified({ ageBracket: '18+' }), { min_age: 18 }).decision).toBe('allow');
    expect(evaluatePolicy(verified({ ageBracket: null }), { min_age: 18 }).explanation![0]).toMatchObject({ passed: false, actual: 'under 18' });
    expect(evaluatePolicy({ verification: 'none', sanctions: 'none' }, { min_age: 18 })).toMatchObject({ reasons: ['kyc_required'] });
  });

  it('jurisdictions: a blocked one wins over the allowlist; jurisdiction_restricted only of a verified person', () => {
    const both = evaluatePolicy(verified({ jurisdiction: 'IR' }), { blocked_jurisdictions: ['IR'], allowed_jurisdictions: ['IR', 'US'] });
    expect([both.decision, both.reasons]).toEqual(['deny', ['jurisdiction_restricted']]);
    expect(evaluatePolicy(verified({ jurisdiction: 'BR' }), { allowed_jurisdictions: ['US'] })).toMatchObject({ decision: 'deny', reasons: ['jurisdiction_restricted'] });
    expect(evaluatePolicy(verified({ jurisdiction: 'DE' }), { blocked_jurisdictions: ['IR'] }).decision).toBe('allow');
    const unverified = evaluatePolicy({ verification: 'none', sanctions: 'none' }, { blocked_jurisdictions: ['IR'], allowed_jurisdictions: ['US'] });
    expect(unverified.reasons).toEqual(['kyc_required']);
    expect(unverified.explanation!.map((e) => e.actual)).toEqual(['unknown', 'unknown']);
  });

  it('every failed reason once, in rule order', () => {
    const outcome = evaluatePolicy(verified({ sanctions: 'flagged', ageBracket: '18+', jurisdiction: 'IR' }), {
      require_kyc: true,
      require_sanctions_clear: true,
      min_age: 21,
      blocked_jurisdictions: ['IR'],
      allowed_jurisdictions: ['US'],
    });
    expect(outcome.reasons).toEqual(['sanctions_flagged', 'age_insufficient', 'jurisdiction_restricted']);
    expect(outcome.policyResult).toEqual({ satisfied: false, rules_evaluated: 5, rules_failed: ['require_sanctions_clear', 'min_age', 'blocked_jurisdictions', 'allowed_jurisdictions'] });
  });

  it('only kyc_required and kyc_failed are resolvable by a verification (verify_url)', () => {
    expect([...resolvableReasons].sort()).toEqual(['kyc_failed', 'kyc_required']);
  });

  const factsArb: fc.Arbitrary<IdentityFacts> = fc.oneof(
    fc.record({ verification: fc.constantFrom('none', 'pending', 'failed'), sanctions: fc.constant('none') }) as fc.Arbitrary<IdentityFacts>,
    fc.record({
      verification: fc.constant('verified'),
      sanctions: fc.constantFrom('clear', 'flagged', 'unscreened'),
      jurisdiction: fc.constantFrom('US', 'DE', 'IR', 'BR', 'KP'),
      ageBracket: fc.constantFrom('21+', '18+', null),
    }) as fc.Arbitrary<IdentityFacts>,
  );
  const codes = fc.subarray(['US', 'DE', 'IR', 'BR', 'KP']);
  const policyArb: fc.Arbitrary<Policy> = fc.record(
    { require_kyc: fc.boolean(), require_sanctions_clear: fc.boolean(), min_age: fc.constantFrom(18, 21) as fc.Arbitrary<18 | 21>, blocked_jurisdictions: codes, allowed_jurisdictions: codes },
    { requiredKeys: [] },
  );

  // A rule that is on: a flag set, an age, a non-empty blocklist, any allowlist.
  const ruleArb = fc.oneof(
    fc.constant({ require_kyc: true } as Policy),
    fc.constant({ require_sanctions_clear: true } as Policy),
    fc.constantFrom(18, 21).map((min_age) => ({ min_age }) as Policy),
    codes.filter((c) => c.length > 0).map((blocked_jurisdictions) => ({ blocked_jurisdictions }) as Policy),
    codes.map((allowed_jurisdictions) => ({ allowed_jurisdictions }) as Policy),
  );

  it('property: adding a rule never turns a deny into an allow', () => {
    fc.assert(
      fc.property(factsArb, policyArb, ruleArb, (facts, policy, rule) => {
        const name = Object.keys(rule)[0] as keyof Policy;
        if (policy[name] !== undefined && policy[name] !== false) return;
        const before = evaluatePolicy(facts, policy);
        const after = evaluatePolicy(facts, { ...policy, ...rule });
        if (before.decision === 'deny') expect(after.decision).toBe('deny');
        // And the rule is judged: one explanation more.
        expect(after.explanation?.length ?? 0).toBe((before.explanation?.length ?? 0) + 1);
      }),
      { numRuns: 2_000 },
    );
  });

  it('property: one explanation per rule set; deny exactly when one failed; reasons are the failed rules\' ', () => {
    fc.assert(
      fc.property(factsArb, policyArb, (facts, policy) => {
        const outcome = evaluatePolicy(facts, policy);
        if (outcome.reasons[0] === 'no_policy_applied') {
          expect(outcome.decision).toBe('allow');
          return;
        }
        const failed = outcome.explanation!.filter((e) => !e.passed);
        expect(outcome.decision).toBe(failed.length > 0 ? 'deny' : 'allow');
        expect(outcome.policyResult!.rules_failed).toEqual(failed.map((e) => e.rule));
        expect(new Set(outcome.reasons).size).toBe(outcome.reasons.length);
        // jurisdiction_restricted is only ever said of a verified person.
        if (outcome.reasons.includes('jurisdiction_restricted')) expect(facts.verification).toBe('verified');
        for (const e of outcome.explanation!) if (e.passed) expect(e.how_to_remedy).toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('operatorFacts: the freshness window of a clear screening', () => {
  const checkedAt = new Date('2026-01-01T00:00:00Z');
  const operator: Operator = {
    id: 'op_x',
    kycStatus: 'verified',
    kycProvider: 'sandbox',
    kycVerifiedAt: checkedAt,
    jurisdiction: 'US',
    ageVerified: true,
    ageBracket: '21+',
    operatorType: 'individual',
    sanctionsResult: 'clear',
    sanctionsCheckedAt: checkedAt,
    sanctionsSdnUid: null,
    reviewConfirmed: false,
  };
  const day = 86_400_000;
  it.each([
    [89, 'clear'],
    [90, 'clear'],
    [91, 'unscreened'],
  ] as const)('%i days after the screening: %s', (days, sanctions) => {
    expect(operatorFacts(operator, new Date(checkedAt.getTime() + days * day), 90).sanctions).toBe(sanctions);
    expect(evaluatePolicy(operatorFacts(operator, new Date(checkedAt.getTime() + days * day), 90), { require_sanctions_clear: true }).explanation![0]!.actual).toBe(sanctions);
  });
  it('a hit is flagged whenever; a screening that could not run is unscreened', () => {
    expect(operatorFacts({ ...operator, sanctionsResult: 'hit' }, checkedAt, 90).sanctions).toBe('flagged');
    expect(operatorFacts({ ...operator, sanctionsResult: 'unavailable', sanctionsCheckedAt: null }, checkedAt, 90).sanctions).toBe('unscreened');
  });
});

// What assess knows of an identity, as the policy engine reads it (identity/assess/policy.ts):
// from a verified operator's derived facts, or from where an unverified account stands.
import type { Operator } from '../operators.ts';
import { sanctionsClear } from '../operators.ts';
import type { IdentityFacts, VerificationState } from './policy.ts';

/** The facts of a verified operator at `now`: sanctions clear only within the freshness window. */
export function operatorFacts(op: Operator, now: Date, freshnessDays: number): IdentityFacts {
  const clear = sanctionsClear(op, now, freshnessDays);
  return {
    verification: 'verified',
    sanctions: clear === true ? 'clear' : clear === false ? 'flagged' : 'unscreened',
    jurisdiction: op.jurisdiction,
    ageBracket: op.ageBracket,
  };
}

/** The facts of an identity no verified operator is behind (none yet, one under way, or one failed). */
export function unverifiedFacts(verification: Exclude<VerificationState, 'verified'>): IdentityFacts {
  return { verification, sanctions: 'none' };
}

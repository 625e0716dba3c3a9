// Test mode of assess (spec 4.2, `test: true`): seven reserved addresses stand for fixed identities,
// and the policy given is evaluated against them as against a real one. Nothing is read from or
// written to the store for them (no session is minted: the verify_url is a reserved test page).
import type { IdentityFacts } from './policy.ts';

const reserved = (last: number) => `0x${'0'.repeat(39)}${last}`;

/** The spec's table: 0x…0001 to 0x…0007. */
export const testIdentities: ReadonlyMap<string, { facts: IdentityFacts; description: string }> = new Map([
  [reserved(1), { description: 'verified individual, US, 21+', facts: verified('US', '21+') }],
  [reserved(2), { description: 'not verified', facts: { verification: 'none', sanctions: 'none' } }],
  [reserved(3), { description: 'verified individual, a sanctions listing matched', facts: { ...verified('US', '21+'), sanctions: 'flagged' } }],
  [reserved(4), { description: 'verified individual, DE', facts: verified('DE', '21+') }],
  [reserved(5), { description: 'verified individual, US, 18+', facts: verified('US', '18+') }],
  [reserved(6), { description: 'verified individual, IR', facts: verified('IR', '21+') }],
  [reserved(7), { description: 'verified individual, BR', facts: verified('BR', '21+') }],
]);

/** The session id of test mode's verify_url: the verify page answers it with a test-mode page. */
export const testSessionId = 'sess_test000000000000000000';

function verified(jurisdiction: string, ageBracket: '21+' | '18+'): IdentityFacts {
  return { verification: 'verified', sanctions: 'clear', jurisdiction, ageBracket };
}

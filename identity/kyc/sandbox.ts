// The sandbox KYC provider (the default in the demo and tests): the verify page itself offers the
// outcomes, clearly marked as a sandbox. "Verified" takes a jurisdiction, an age bracket and a name
// to screen (type a sanctioned name to reach `flagged`); "failed" is a vendor's refusal.
import { jurisdictionCode } from '../jurisdictions.ts';
import type { AgeBracket, KycResult, SandboxProvider } from './provider.ts';

export const sandboxProvider: SandboxProvider = { name: 'sandbox', flow: 'sandbox' };

/** The age choices of the form: value → bracket. */
export const sandboxAges: Readonly<Record<string, { label: string; bracket: AgeBracket }>> = {
  '21+': { label: '21 or older', bracket: '21+' },
  '18+': { label: '18 to 20', bracket: '18+' },
  under18: { label: 'Under 18', bracket: null },
};

/** What the sandbox's failure stands for: Stripe Identity's code for a document it could not verify. */
export const sandboxFailureCode = 'document_unverified_other';

export interface SandboxChoice {
  outcome: 'verified' | 'failed';
  jurisdiction?: string;
  age?: string;
  name?: string;
}

/** The result the sandbox form asks for, or the first problem with it (a sentence for the page). */
export function sandboxResult(choice: SandboxChoice): { result: KycResult } | { problem: string } {
  if (choice.outcome === 'failed') return { result: { outcome: 'failed', code: sandboxFailureCode } };
  const jurisdiction = jurisdictionCode(choice.jurisdiction ?? '');
  if (!jurisdiction) return { problem: 'Choose the country that issued the identity document.' };
  const age = sandboxAges[choice.age ?? ''];
  if (!age) return { problem: 'Choose an age bracket.' };
  const name = (choice.name ?? '').trim();
  if (name.length === 0 || name.length > 200) return { problem: 'Type the name to screen (at most 200 characters).' };
  return { result: { outcome: 'verified', identity: { jurisdiction, ageBracket: age.bracket, operatorType: 'individual', screeningName: name } } };
}

// The sandbox KYC provider (the default in the demo and tests): the verify page itself offers the
// outcomes, clearly marked as a sandbox. "Verified" takes a jurisdiction, an age bracket, a name
// to screen (type a sanctioned name to reach `flagged`) and, optionally, a year of birth (one in
// none of the listed person's dates of birth sets the match aside); "failed" is a vendor's refusal.
import { jurisdictionCode } from '../jurisdictions.ts';
import { ageBracketOf, type AgeBracket, type KycResult, type SandboxProvider } from './provider.ts';

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
  /** Four digits, or empty: no year of birth given. */
  birthYear?: string;
}

/** The result the sandbox form asks for, or the first problem with it (a sentence for the page). */
export function sandboxResult(choice: SandboxChoice, now: Date): { result: KycResult } | { problem: string } {
  if (choice.outcome === 'failed') return { result: { outcome: 'failed', code: sandboxFailureCode } };
  const jurisdiction = jurisdictionCode(choice.jurisdiction ?? '');
  if (!jurisdiction) return { problem: 'Choose the country that issued the identity document.' };
  const age = sandboxAges[choice.age ?? ''];
  if (!age) return { problem: 'Choose an age bracket.' };
  const name = (choice.name ?? '').trim();
  if (name.length === 0 || name.length > 200) return { problem: 'Type the name to screen (at most 200 characters).' };
  const birthYear = (choice.birthYear ?? '').trim();
  if (birthYear !== '' && !yearFits(birthYear, age.bracket, now)) {
    return { problem: `The year of birth must be a year from 1900 to ${now.getUTCFullYear()} that agrees with the age bracket, or left empty.` };
  }
  const screeningBirthYear = birthYear === '' ? null : Number(birthYear);
  return { result: { outcome: 'verified', identity: { jurisdiction, ageBracket: age.bracket, operatorType: 'individual', screeningName: name, screeningBirthYear } } };
}

// Someone born in `year` is as old today as one born on its 1 January or its 31 December, or
// in between: the two ages differ by one at most.
function yearFits(year: string, bracket: AgeBracket, now: Date): boolean {
  if (!/^\d{4}$/.test(year) || Number(year) < 1900 || Number(year) > now.getUTCFullYear()) return false;
  const brackets = [ageBracketOf({ year: Number(year), month: 1, day: 1 }, now), ageBracketOf({ year: Number(year), month: 12, day: 31 }, now)];
  return brackets.includes(bracket);
}

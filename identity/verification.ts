// A vendor's result becomes a session's outcome: a failure as it is; a verified identity is
// screened by name first (spec 3.1: verified only when the screening is clear, flagged on a
// potential match), and fails closed: with no list to screen against it is flagged for a person
// to review, never verified. The name and the year of birth are passed to the screening call and
// go nowhere else.
import type { Store } from '../pipeline/store/store.ts';
import type { IdentityState } from './state.ts';
import type { KycResult } from './kyc/provider.ts';
import type { NameScreening } from './screening.ts';
import { recordOutcome, type Session, type VendorDelivery } from './sessions.ts';

export async function completeVerification(
  deps: { store: Store; state: IdentityState; screening: NameScreening; kycProvider: string },
  sessionId: string,
  result: KycResult,
  now: Date,
  delivery?: VendorDelivery,
): Promise<Session> {
  if (result.outcome === 'failed') return recordOutcome(deps.store, deps.state, sessionId, { outcome: 'failed', code: result.code }, now, delivery);
  const { screeningName, screeningBirthYear, ...facts } = result.identity;
  const screening = await deps.screening.screen(screeningName, screeningBirthYear);
  return recordOutcome(deps.store, deps.state, sessionId, { outcome: 'verified', operator: { ...facts, kycProvider: deps.kycProvider, screening } }, now, delivery);
}

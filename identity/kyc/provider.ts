// One interface for the KYC vendors behind the verify page. A vendor answers with a result that
// holds derived facts only, plus the name and the year of birth to screen, which live in memory
// until the screening call and are then dropped (identity/verification.ts): nothing else of the
// vendor's outputs (the rest of the date of birth, address, document number, images) leaves the
// provider.

/** 21+ or 18+ when an age of at least that was verified; null when under 18. */
export type AgeBracket = '21+' | '18+' | null;

export interface VerifiedIdentity {
  /** ISO 3166-1 alpha-2 of the identity document's issuing country. */
  jurisdiction: string;
  ageBracket: AgeBracket;
  operatorType: 'individual';
  /** The name on the document, for sanctions screening only: never stored or logged. */
  screeningName: string;
  /** The year of birth on the document, for sanctions screening only (null: not given): never stored or logged. */
  screeningBirthYear: number | null;
}

export type KycResult =
  | { outcome: 'verified'; identity: VerifiedIdentity }
  /** `code`: the vendor's reason (e.g. document_unverified_other, selfie_mismatch), never personal data. */
  | { outcome: 'failed'; code: string };

/** The sandbox: the verify page itself offers the outcomes (identity/kyc/sandbox.ts). */
export interface SandboxProvider {
  readonly name: 'sandbox';
  readonly flow: 'sandbox';
}

/** A vendor with a hosted flow: the page sends the user there; the result comes back by webhook. */
export interface HostedProvider {
  readonly name: 'stripe';
  readonly flow: 'hosted';
  /**
   * The vendor's session for `session` (the open one of `providerRef`, or a new one) and the URL to
   * send the user to; the vendor sends them back to `returnUrl` when they are done. A new one is
   * attempt number `attempt`: starts that race for the same attempt get the same vendor session.
   * Without `mayCreate` (no attempts left) only the open one may be reused: NoAttemptsLeftError.
   */
  start(session: { id: string; providerRef: string | null; returnUrl: string; attempt: number; mayCreate: boolean }): Promise<{ url: string; providerRef: string }>;
  /**
   * A webhook delivery, verified before it is parsed (signature over the raw body, replay window):
   * throws WebhookSignatureError when it is not the vendor's; `ignored` for events that carry no result.
   */
  receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookDelivery>;
}

export type WebhookDelivery =
  /** `reason` when the event looked like ours but could not be used (worth a warning). */
  | { kind: 'ignored'; eventId: string; type: string; reason?: string }
  | { kind: 'result'; eventId: string; type: string; sessionId: string; providerRef: string; result: KycResult };

export type KycProvider = SandboxProvider | HostedProvider;

export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

/** A vendor session would have to be created for an attempt the session no longer has. */
export class NoAttemptsLeftError extends Error {
  override name = 'NoAttemptsLeftError';
}

/** The age bracket of someone born on `birth` (a calendar date), on the UTC day of `now`. */
export function ageBracketOf(birth: { year: number; month: number; day: number }, now: Date): AgeBracket {
  const y = now.getUTCFullYear();
  const beforeBirthday = now.getUTCMonth() + 1 < birth.month || (now.getUTCMonth() + 1 === birth.month && now.getUTCDate() < birth.day);
  const age = y - birth.year - (beforeBirthday ? 1 : 0);
  return age >= 21 ? '21+' : age >= 18 ? '18+' : null;
}

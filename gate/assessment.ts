// An assess answer (spec 2.4) read as the gate's verdict, in the order that protects the merchant:
//   1. an unfixable reason (sanctions_flagged, age_insufficient, jurisdiction_restricted, or one
//      this gate does not know) → wallet_not_trusted;
//   2. sanctions_check_unavailable (the service could not screen: an outage it fails closed on)
//      → 503 api_error, retry_with_backoff, never fail-open;
//   3. the signer check (spec 2.4.2): wallet_signer_mismatch, wallet_auth_requires_wallet_signing;
//   4. fixable reasons only (kyc_required, kyc_pending, kyc_failed) → identity_verification_required
//      with assess's session, or one the gate mints (rule 1: never wallet_not_trusted);
//   5. allow → pass.
import { walletAuthRequiresWalletSigning, walletNotTrusted, walletSignerMismatch, type ModeFields, type SessionFields } from './denials.ts';
import type { Presented } from './headers.ts';
import type { GateDenial } from './types.ts';

export const fixableReasons: ReadonlySet<string> = new Set(['kyc_required', 'kyc_pending', 'kyc_failed']);
/** Unfixable reasons that hold for the cache's lifetime. */
export const lastingReasons: ReadonlySet<string> = new Set(['sanctions_flagged', 'age_insufficient', 'jurisdiction_restricted']);
/** The service's sanctions list was unavailable or too old to screen with: an outage, not a verdict on the buyer. */
export const unscreenedReason = 'sanctions_check_unavailable';

export type Verdict =
  | { kind: 'pass' }
  | { kind: 'deny'; denial: GateDenial; lasting: boolean }
  /** Rule 1: verifying fixes it; `session` when assess minted one. */
  | { kind: 'verify'; reasons: string[]; session: SessionFields | null }
  /** The service could not screen (sanctions_check_unavailable) and denied: the caller answers 503, never fail-open. */
  | { kind: 'unscreened' }
  /** An answer that is none of the above (no decision): the caller treats it as the service failing. */
  | { kind: 'unreadable'; detail: string };

export function verdictOf(answer: any, presented: Exclude<Presented, { mode: 'none' }>, mode: ModeFields): Verdict {
  if (typeof answer !== 'object' || answer === null || (answer.decision !== 'allow' && answer.decision !== 'deny')) {
    return { kind: 'unreadable', detail: 'assess answered without a decision' };
  }
  const reasons: string[] = Array.isArray(answer.decision_reasons) ? answer.decision_reasons.filter((r: unknown): r is string => typeof r === 'string') : [];
  const unfixable = reasons.filter((r) => !fixableReasons.has(r) && r !== 'no_policy_applied' && r !== unscreenedReason);
  if (answer.decision === 'deny' && unfixable.length > 0) {
    return { kind: 'deny', denial: walletNotTrusted(unfixable, mode), lasting: unfixable.every((r) => lastingReasons.has(r)) };
  }
  if (answer.decision === 'deny' && reasons.includes(unscreenedReason)) return { kind: 'unscreened' };
  const match = answer.signer_match;
  if (match?.kind === 'wallet_signer_mismatch') return { kind: 'deny', denial: walletSignerMismatch(match, mode), lasting: false };
  // An operator token works on any rail (spec 5.4): only a wallet needs the payment's signature.
  if (match?.kind === 'wallet_auth_requires_wallet_signing' && presented.mode === 'wallet') {
    return { kind: 'deny', denial: walletAuthRequiresWalletSigning(match.agent_instructions, mode), lasting: false };
  }
  if (answer.decision === 'deny') {
    const fixable = reasons.filter((r) => fixableReasons.has(r));
    // A deny with no reason at all is not something verifying can be said to fix: fail closed.
    if (fixable.length === 0) return { kind: 'deny', denial: walletNotTrusted(['unspecified'], mode), lasting: false };
    return { kind: 'verify', reasons: fixable, session: sessionOf(answer.verification_session) };
  }
  return { kind: 'pass' };
}

/** A session as the service gives it (verification_session, POST /v1/sessions, a token_expired error); null when a field is missing. */
export function sessionOf(value: any): SessionFields | null {
  if (typeof value !== 'object' || value === null) return null;
  const { session_id, poll_secret, verify_url, poll_url, expires_at } = value;
  if (![session_id, poll_secret, verify_url, poll_url].every((v) => typeof v === 'string' && v.length > 0)) return null;
  const interval = value.next_steps?.poll_interval_seconds;
  return {
    session_id,
    poll_secret,
    verify_url,
    poll_url,
    ...(typeof expires_at === 'string' ? { expires_at } : {}),
    ...(typeof interval === 'number' ? { poll_interval_seconds: interval } : {}),
  };
}

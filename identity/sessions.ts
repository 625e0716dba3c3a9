// Verification sessions: the state machine of spec 3.1 and what happens after it (docs/decisions.md,
// "Verification sessions after failed, flagged and expired").
//
//   pending ──verified + screening clear──► verified ──first poll──► consumed
//      │  └──verified + screening hit/unavailable──► flagged ──review cleared──► verified
//      │  └──vendor result unsuccessful──► failed ──retry on the page (before expiry, 3 attempts)──► pending
//      └──1 hour──► expired            verified, never polled within 24 h ──► expired
//
// `expired` is never written: it is read from the clock (statusAt), so no job has to move it.
// Every change is a conditional write inside the store's serialised writer: the unit reads the
// session and changes it in one transaction, and its caller hears of it only after COMMIT. That is
// what makes the operator token leave in exactly one poll answer, however many polls race.
import type { Store } from '../pipeline/store/store.ts';
import type { DuckDBValue } from '@duckdb/node-api';
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import type { Row } from '../pipeline/store/rows.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newId, newSecret, secretsEqual, sha256Hex } from '../pipeline/secrets.ts';
import type { NewOperator } from './operators.ts';
import { operatorTokenTtlSeconds, type IssuedToken } from './tokens.ts';
import type { IssuedRefresh } from './refresh.ts';
import type { IdentityState } from './state.ts';
import type { DeferredSession, DeferredSessions } from './deferred-sessions.ts';
import { at, dateOf, retentionCutoff, textOf } from './store-values.ts';

/** Spec 2.3: a session expires 1 hour after creation. */
export const sessionTtlMs = 60 * 60 * 1000;
/** Verifications a user may start on one session (the first and two retries after failures). */
export const maxAttempts = 3;
export const pollSecretPrefix = 'pls_';

export type StoredStatus = 'pending' | 'verified' | 'consumed' | 'failed' | 'flagged';
export type SessionStatus = StoredStatus | 'expired';

/** agent: POST /v1/sessions, for a merchant's buyer; account: the account holder's own verification. */
export type SessionPurpose = 'agent' | 'account';

export interface Session {
  id: string;
  accountId: string;
  purpose: SessionPurpose;
  context: string | null;
  productName: string | null;
  /** The creating account's display name (accounts.name), shown on the verify page. */
  merchantName: string | null;
  pollSecretHash: string;
  stored: StoredStatus;
  kycProvider: string;
  providerRef: string | null;
  attempts: number;
  failureCode: string | null;
  operatorId: string | null;
  reviewDecision: 'cleared' | 'confirmed' | null;
  createdAt: Date;
  expiresAt: Date;
  completedAt: Date | null;
  consumedAt: Date | null;
}

/**
 * The status at `now`: pending past its expiry, or an agent's session verified and never polled
 * for 24 h, is expired. (An account holder's verified session stays verified: nobody polls it.)
 */
export function statusAt(s: Session, now: Date): SessionStatus {
  if (s.stored === 'pending' && now >= s.expiresAt) return 'expired';
  if (s.stored === 'verified' && s.purpose === 'agent' && s.completedAt && now.getTime() >= s.completedAt.getTime() + operatorTokenTtlSeconds * 1000) return 'expired';
  return s.stored;
}

/** A failed session may be tried again on its page until it expires, up to maxAttempts in all. */
export function retryUntil(s: Session, now: Date): Date | null {
  return s.stored === 'failed' && now < s.expiresAt && s.attempts < maxAttempts ? s.expiresAt : null;
}

/** Whether a verification may be started (or continued) on the page now. */
export function canStart(s: Session, now: Date): boolean {
  return statusAt(s, now) === 'pending' || retryUntil(s, now) !== null;
}

export interface NewSession {
  accountId: string;
  purpose: SessionPurpose;
  context: string | null;
  productName: string | null;
  kycProvider: string;
  now: Date;
}

/** Creates a pending session; the poll secret is in the result only (stored as its SHA-256). */
export function createSession(store: Store, input: NewSession): Promise<{ session: Session; pollSecret: string }> {
  return store.write((tx) => insertSession(tx, input));
}

/**
 * An account holder's own verification that can still be completed (pending, or failed with an
 * attempt left), or a new one: looked up and created in one writer unit, so that requests at once
 * get one session. Its poll secret is never shown: nobody polls an account session.
 */
export function openAccountSession(store: Store, input: Omit<NewSession, 'purpose' | 'context' | 'productName'>): Promise<Session> {
  return store.write(async (tx) => {
    const [open] = await tx.all(sqlFile('identity/account_session_open'), [input.accountId, at(input.now), maxAttempts]);
    if (open) return lockedSession(tx, String(open.id));
    return (await insertSession(tx, { ...input, purpose: 'account', context: 'account verification', productName: null })).session;
  });
}

async function insertSession(tx: WriteTx, input: NewSession): Promise<{ session: Session; pollSecret: string }> {
  const pollSecret = newSecret(pollSecretPrefix);
  const session = pendingSession({ ...input, id: newId('sess_'), merchantName: null, pollSecretHash: sha256Hex(pollSecret), createdAt: input.now });
  await insertRow(tx, session);
  return { session, pollSecret };
}

async function insertRow(tx: WriteTx, s: Session): Promise<void> {
  await tx.run(sqlFile('identity/session_insert'), [s.id, s.accountId, s.purpose, s.context, s.productName, s.pollSecretHash, s.kycProvider, at(s.createdAt), at(s.expiresAt)]);
}

/** A new session: pending for an hour, no attempt yet. */
function pendingSession(s: Pick<Session, 'id' | 'accountId' | 'purpose' | 'context' | 'productName' | 'merchantName' | 'pollSecretHash' | 'kycProvider' | 'createdAt'>): Session {
  return {
    ...s,
    stored: 'pending',
    providerRef: null,
    attempts: 0,
    failureCode: null,
    operatorId: null,
    reviewDecision: null,
    expiresAt: new Date(s.createdAt.getTime() + sessionTtlMs),
    completedAt: null,
    consumedAt: null,
  };
}

type Query = (sql: string, params: DuckDBValue[]) => Promise<Row[]>;

/**
 * The session `id` as `query` (the read pool, or the writer's transaction) sees it: its row, or,
 * with `deferred`, a minted session nobody has used yet, as it was minted (`written: false`). A
 * minted session's merchant name is read only when asked for (the page shows it; a poll does not).
 */
async function findSession(query: Query, id: string, deferred?: DeferredSessions, withMerchantName = false): Promise<{ session: Session; written: boolean } | null> {
  const [row] = await query(sqlFile('identity/session_by_id'), [id]);
  if (row) return { session: sessionOf(row), written: true };
  const unused = deferred?.open(id);
  if (!unused) return null;
  const session = mintedSession(unused, deferred!.kycProvider);
  if (withMerchantName) session.merchantName = textOf((await query(sqlFile('identity/account_display_name'), [unused.accountId]))[0]?.merchant_name);
  return { session, written: false };
}

/** A minted session nobody has used yet, as its id says: pending for its hour (no merchant name read). */
export function mintedSession(minted: DeferredSession, kycProvider: string): Session {
  return pendingSession({
    id: minted.id,
    accountId: minted.accountId,
    purpose: 'agent',
    context: minted.labels.context,
    productName: minted.labels.productName,
    merchantName: null,
    pollSecretHash: minted.pollSecretHash,
    kycProvider,
    createdAt: minted.createdAt,
  });
}

/**
 * The session `id`: its row, or, with `deferred`, a minted session nobody has used yet (pending);
 * `withMerchantName` for the page, which shows it.
 */
export async function readSession(store: Store, id: string, deferred?: DeferredSessions, withMerchantName = false): Promise<Session | null> {
  return (await findSession((sql, params) => store.read(sql, params), id, deferred, withMerchantName))?.session ?? null;
}

// Compared against for an unknown session, so that it costs what a wrong secret costs.
const absentHash = sha256Hex(newSecret(pollSecretPrefix));

/** The session when `secret` is its poll secret; null for a wrong secret and an unknown session alike. */
export async function authenticatePoll(store: Store, id: string, secret: string, deferred?: DeferredSessions): Promise<Session | null> {
  const session = await readSession(store, id, deferred);
  const matches = secretsEqual(sha256Hex(secret), session?.pollSecretHash ?? absentHash);
  return session && matches ? session : null;
}

/**
 * Delivers the operator token of a verified agent session, with the first refresh token of a new
 * family (the client's login): verified becomes consumed and both are issued in the same
 * transaction. Exactly one caller gets `delivered`; the others the session as it is then.
 */
export async function consumeVerified(
  store: Store,
  state: IdentityState,
  id: string,
  now: Date,
): Promise<{ kind: 'delivered'; token: IssuedToken; refresh: IssuedRefresh; session: Session } | { kind: 'not_verified'; session: Session }> {
  return store.write(async (tx) => {
    const session = await lockedSession(tx, id);
    if (session.purpose !== 'agent' || statusAt(session, now) !== 'verified') return { kind: 'not_verified', session };
    await tx.run(sqlFile('identity/session_consume'), [id, at(now)]);
    const owner = { operatorId: session.operatorId!, accountId: session.accountId, now };
    const refresh = await state.refresh.startFamily(tx, owner);
    const token = await state.tokens.issue(tx, { ...owner, source: 'session', sessionId: id, familyId: refresh.familyId, ttlSeconds: operatorTokenTtlSeconds });
    return { kind: 'delivered', token, refresh, session: { ...session, stored: 'consumed', consumedAt: now } };
  });
}

/** Why a state change was refused: the session's status at the time, and a sentence for the page. */
export class SessionStateError extends Error {
  override name = 'SessionStateError';
  constructor(
    readonly status: SessionStatus,
    message: string,
  ) {
    super(message);
  }
}

/** A vendor's webhook delivery a result came in: recorded with the outcome, so it applies once. */
export interface VendorDelivery {
  provider: string;
  eventId: string;
  /** The vendor session the result is for: it must be the session's current attempt. */
  providerRef: string;
}

export type VerificationOutcome =
  | { outcome: 'verified'; operator: Omit<NewOperator, 'now'> }
  | { outcome: 'failed'; code: string };

/**
 * Records a vendor's result on a pending session: failed, or an operator and then verified (screening
 * clear) or flagged (a hit, or no list to screen against). Refused unless the session is pending
 * and unexpired (and, for a vendor's delivery, not applied before and for the current attempt),
 * so a late, repeated or replayed result changes nothing.
 */
export async function recordOutcome(store: Store, state: IdentityState, id: string, result: VerificationOutcome, now: Date, delivery?: VendorDelivery): Promise<Session> {
  return store.write(async (tx) => {
    const session = await lockedSession(tx, id);
    const status = statusAt(session, now);
    if (delivery) {
      const [seen] = await tx.all(sqlFile('identity/webhook_event_seen'), [delivery.provider, delivery.eventId]);
      if (seen?.seen) throw new SessionStateError(status, `event ${delivery.eventId} was already applied`);
    }
    if (status !== 'pending') throw new SessionStateError(status, `the session is ${status}, not waiting for a verification result`);
    // A vendor's result for an earlier attempt (its session was replaced by a retry) is stale.
    if (delivery && delivery.providerRef !== session.providerRef) throw new SessionStateError(status, 'the result is for an earlier attempt');
    if (delivery) await tx.run(sqlFile('identity/webhook_event_insert'), [delivery.provider, delivery.eventId, at(now)]);
    if (result.outcome === 'failed') {
      await tx.run(sqlFile('identity/session_set_state'), [id, 'failed', result.code, null, null]);
      return { ...session, stored: 'failed', failureCode: result.code };
    }
    const { id: operatorId } = await state.operators.insert(tx, { ...result.operator, now });
    const next: StoredStatus = result.operator.screening.status === 'clear' ? 'verified' : 'flagged';
    // An account holder's own verification is the account's operator, also while it is flagged
    // (credentials wait for the review; its wallets are not kyc_verified until then).
    if (session.purpose === 'account') state.wallets.linkAccountOperator(tx, session.accountId, operatorId);
    await tx.run(sqlFile('identity/session_set_state'), [id, next, null, operatorId, at(now)]);
    return { ...session, stored: next, operatorId, completedAt: now };
  });
}

/**
 * The user starts a verification on the page: the first attempt of a pending session, or a retry
 * of a failed one (back to pending). `providerRef` is the vendor's session, when it has one. An
 * attempt is counted when it is the first or follows a failure, and whenever the vendor's session
 * is a new one (a failure whose result has not come in yet was an attempt too); continuing the
 * vendor's open session (a reload of its page) is the same attempt.
 */
export async function startAttempt(store: Store, id: string, providerRef: string | null, now: Date, deferred?: DeferredSessions): Promise<Session> {
  return store.write(async (tx) => {
    const session = await lockedSession(tx, id, deferred && { sessions: deferred, now });
    const status = statusAt(session, now);
    if (!canStart(session, now)) {
      const why = status !== 'failed' ? `the session is ${status}` : now >= session.expiresAt ? 'this link has expired' : `no attempts left (${maxAttempts} in all)`;
      throw new SessionStateError(status, why);
    }
    const counted = providerRef !== null ? providerRef !== session.providerRef : status === 'failed' || session.attempts === 0;
    if (counted && session.attempts >= maxAttempts) throw new SessionStateError(status, `no attempts left (${maxAttempts} in all)`);
    await tx.run(sqlFile('identity/session_start_attempt'), [id, providerRef, counted ? 1 : 0]);
    return { ...session, stored: 'pending', attempts: session.attempts + (counted ? 1 : 0), failureCode: null, providerRef: providerRef ?? session.providerRef };
  });
}

/**
 * A person's review of a flagged session: `cleared` makes the operator's screening clear as of now
 * and the session verified (its token deliverable for 24 h); `confirmed` keeps it flagged for good.
 * `state` is the server's memory; null when the CLI runs without a server (it loads at start).
 */
export async function reviewFlagged(store: Store, state: IdentityState | null, id: string, decision: 'cleared' | 'confirmed', now: Date): Promise<Session> {
  return store.write(async (tx) => {
    const session = await lockedSession(tx, id);
    if (session.stored !== 'flagged' || session.reviewDecision !== null) {
      throw new SessionStateError(statusAt(session, now), `session ${id} is not waiting for a review (status ${statusAt(session, now)}${session.reviewDecision ? `, already ${session.reviewDecision}` : ''})`);
    }
    if (decision === 'cleared') {
      // A flag raised because no list could answer has no match to judge, and the name is gone:
      // clearing it would make an unscreened person clear. Confirm it; the person verifies again.
      const [operator] = await tx.all(sqlFile('identity/operator_by_id'), [session.operatorId]);
      if (operator?.sanctions_result === 'unavailable') {
        throw new SessionStateError('flagged', `session ${id} was flagged because no sanctions list could screen the name: nothing to clear; --confirm it, and the person verifies again in a new session`);
      }
      if (state) await state.operators.markClear(tx, session.operatorId!, now);
      else await tx.run(sqlFile('identity/operator_clear_sanctions'), [session.operatorId, at(now)]);
      await tx.run(sqlFile('identity/session_review'), [id, 'verified', decision, at(now), at(now)]);
      return { ...session, stored: 'verified', reviewDecision: decision, completedAt: now };
    }
    await tx.run(sqlFile('identity/session_review'), [id, 'flagged', decision, at(now), null]);
    state?.operators.markConfirmed(tx, session.operatorId!);
    return { ...session, reviewDecision: decision };
  });
}

/**
 * Deletes the sessions nobody completed (pending or failed) that expired more than `retentionDays`
 * before `now`: sessions made with POST /v1/sessions and denials' sessions whose page was opened
 * but never finished; and the vendor webhook deliveries seen before then. Through the operational
 * writer, as every session write.
 */
export async function pruneSessions(store: Store, retentionDays: number, now: Date): Promise<{ deleted: number; webhookEvents: number; cutoff: string }> {
  const cutoff = retentionCutoff(now, retentionDays);
  return store.writeOperational(async (tx) => {
    const [sessions] = await tx.all(sqlFile('identity/sessions_prune'), [at(cutoff)]);
    const [events] = await tx.all(sqlFile('identity/webhook_events_prune'), [at(cutoff)]);
    return { deleted: Number(sessions?.Count ?? 0), webhookEvents: Number(events?.Count ?? 0), cutoff: cutoff.toISOString() };
  });
}

/** Flagged sessions no person has reviewed yet, oldest first, with the listing their screening matched. */
export async function flaggedSessions(store: Store): Promise<Row[]> {
  return store.read(sqlFile('identity/sessions_flagged'));
}

export class UnknownSessionError extends Error {
  override name = 'UnknownSessionError';
}

// The session as the writer's transaction sees it: no other write can come between this read and
// the change that follows it. With `deferred`, a minted session nobody has used yet is written
// now (its first use: a verification started on its page), as it was minted; past its hour it is
// only read (expired: the caller refuses it, and nothing is written).
async function lockedSession(tx: WriteTx, id: string, deferred?: { sessions: DeferredSessions; now: Date }): Promise<Session> {
  const found = await findSession((sql, params) => tx.all(sql, params), id, deferred?.sessions);
  if (!found) throw new UnknownSessionError(`no verification session ${id}`);
  if (!found.written && statusAt(found.session, deferred!.now) === 'pending') await insertRow(tx, found.session);
  return found.session;
}

function sessionOf(row: Row): Session {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    purpose: String(row.purpose) as SessionPurpose,
    context: textOf(row.context),
    productName: textOf(row.product_name),
    merchantName: textOf(row.merchant_name),
    pollSecretHash: String(row.poll_secret_hash),
    stored: String(row.status) as StoredStatus,
    kycProvider: String(row.kyc_provider),
    providerRef: textOf(row.provider_ref),
    attempts: Number(row.attempts),
    failureCode: textOf(row.failure_code),
    operatorId: textOf(row.operator_id),
    reviewDecision: textOf(row.review_decision) as Session['reviewDecision'],
    createdAt: dateOf(row.created_at)!,
    expiresAt: dateOf(row.expires_at)!,
    completedAt: dateOf(row.completed_at),
    consumedAt: dateOf(row.consumed_at),
  };
}

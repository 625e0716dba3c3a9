// Operator credentials (spec 2.1, 2.2, 3.2, 4.5-4.7): an account holder who verified their own
// identity creates opc_ tokens for their agents, with a label and a lifetime of days. The holder
// verifies through the same verify page as anyone (a session whose purpose is `account`); the
// newest such verification is the account's operator (identity/wallets/directory.ts keeps it).
//
// A credential only identifies: whether its operator is acceptable is decided live on every use
// (assess, the gate), from the facts at that time of the account holder's newest verification
// (WalletDirectory.operatorOf), so verifying again renews every credential of the account.
import type { Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { accountVerification, sanctionsClear, type Operator } from './operators.ts';
import { openAccountSession, type Session } from './sessions.ts';
import { at } from './store-values.ts';
import type { IdentityState } from './state.ts';
import { isActive, type IssuedToken, type TokenRecord } from './tokens.ts';

export interface CredentialRequest {
  label: string | null;
  ttlDays: number;
}

export type CredentialCreation =
  | { kind: 'created'; token: IssuedToken; label: string | null }
  /**
   * No verification of the account holder yet, or a new one is needed (`stale`: the name screening
   * is older than the freshness window): verify at this session.
   */
  | { kind: 'kyc_required'; session: Session; stale: boolean }
  /** Verified, but the name screening flagged it (`sessionId`): credentials wait for a person's review. */
  | { kind: 'under_review'; sessionId: string };

/** The account holder's operator, when their own verification recorded one. */
export function accountOperator(state: IdentityState, accountId: string): Operator | null {
  const operatorId = state.wallets.operatorOfAccount(accountId);
  return operatorId ? (state.operators.get(operatorId) ?? null) : null;
}

export async function createCredential(
  deps: { store: Store; state: IdentityState; kycProvider: string; freshnessDays: number },
  accountId: string,
  request: CredentialRequest,
  now: Date,
): Promise<CredentialCreation> {
  const operator = accountOperator(deps.state, accountId);
  if (operator?.sanctionsResult === 'hit') {
    // A potential match waits for a person; a confirmed one (or one whose screening could not run,
    // which no review can clear) needs a new verification.
    const [flagged] = await deps.store.read(sqlFile('identity/session_of_operator'), [operator.id]);
    if (flagged && flagged.review_decision === null) return { kind: 'under_review', sessionId: String(flagged.id) };
  }
  // A screening older than the window would fail every require_sanctions_clear policy (spec 4.2
  // rule 4) with no way out for the holder: a new verification renews all their credentials.
  const stale = operator?.sanctionsResult === 'clear' && sanctionsClear(operator, now, deps.freshnessDays) === null;
  if (operator?.sanctionsResult !== 'clear' || stale) {
    return { kind: 'kyc_required', session: await openAccountSession(deps.store, { accountId, kycProvider: deps.kycProvider, now }), stale };
  }
  const token = await deps.store.write((tx) =>
    deps.state.tokens.issue(tx, {
      operatorId: operator.id,
      accountId,
      source: 'credential',
      label: request.label,
      now,
      ttlSeconds: request.ttlDays * 86_400,
    }),
  );
  return { kind: 'created', token, label: request.label };
}

/** GET /v1/credentials: the holder's verification (2.2) and the account's active credentials. */
export async function listCredentials(
  deps: { store: Store; state: IdentityState; freshnessDays: number },
  accountId: string,
  now: Date,
): Promise<{ account_verification: Record<string, unknown>; credentials: Record<string, unknown>[] }> {
  const operator = accountOperator(deps.state, accountId);
  return {
    account_verification: accountVerification(operator, now, deps.freshnessDays),
    credentials: deps.state.tokens.credentialsOf(accountId, now).map(listed),
  };
}

/**
 * Revokes an active credential of the account; false when there is none with that id (another
 * account's, a session token, an expired or revoked one: one answer for all, no enumeration).
 */
export async function revokeCredential(deps: { store: Store; state: IdentityState }, accountId: string, id: string, now: Date): Promise<boolean> {
  return deps.store.write(async (tx) => {
    const record = deps.state.tokens.get(id);
    if (!record || record.source !== 'credential' || record.accountId !== accountId || !isActive(record, now)) return false;
    await deps.state.tokens.revoke(tx, [record], now);
    return true;
  });
}

function listed(r: TokenRecord): Record<string, unknown> {
  return {
    id: r.id,
    prefix: r.prefix,
    label: r.label,
    expires_at: r.expiresAt.toISOString(),
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

/**
 * Where an account holder's own verification stands when no verified operator is behind the
 * account: pending (one under way), failed (the last one failed and none is open), or none.
 */
export async function accountVerificationState(store: Store, accountId: string, now: Date): Promise<'none' | 'pending' | 'failed'> {
  const [newest] = await store.read(sqlFile('identity/account_session_newest'), [accountId, at(now)]);
  if (!newest) return 'none';
  return newest.status === 'pending' ? 'pending' : newest.status === 'failed' ? 'failed' : 'none';
}

// Operator credentials (spec 2.1, 2.2, 3.2, 4.5-4.7): an account holder who verified their own
// identity creates opc_ tokens for their agents, with a label and a lifetime of days. The holder
// verifies through the same verify page as anyone (a session whose purpose is `account`); the
// newest such verification is the account's operator (identity/wallets/directory.ts keeps it).
//
// A credential only identifies: whether its operator is acceptable is decided live on every use
// (assess, the gate), from the operator's facts at that time.
import type { Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { accountVerification, readOperator, type Operator } from './operators.ts';
import { createSession, maxAttempts, readSession, type Session } from './sessions.ts';
import type { IdentityState } from './state.ts';
import { isActive, type IssuedToken, type TokenRecord } from './tokens.ts';
import { at } from './store-values.ts';

export interface CredentialRequest {
  label: string | null;
  ttlDays: number;
}

export type CredentialCreation =
  | { kind: 'created'; token: IssuedToken; label: string | null }
  /** No verification of the account holder yet (or a new one is needed): verify at this session. */
  | { kind: 'kyc_required'; session: Session }
  /** Verified, but the name screening flagged it (`sessionId`): credentials wait for a person's review. */
  | { kind: 'under_review'; sessionId: string };

/** The account holder's operator, when their own verification recorded one. */
export async function accountOperator(store: Store, state: IdentityState, accountId: string): Promise<Operator | null> {
  const operatorId = state.wallets.operatorOfAccount(accountId);
  return operatorId ? readOperator(store, operatorId) : null;
}

export async function createCredential(
  deps: { store: Store; state: IdentityState; kycProvider: string },
  accountId: string,
  request: CredentialRequest,
  now: Date,
): Promise<CredentialCreation> {
  const operator = await accountOperator(deps.store, deps.state, accountId);
  if (!operator) return { kind: 'kyc_required', session: await accountSession(deps, accountId, now) };
  if (operator.sanctionsResult !== 'clear') {
    const [flagged] = await deps.store.read(sqlFile('identity/session_of_operator'), [operator.id]);
    return { kind: 'under_review', sessionId: String(flagged?.id) };
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
  const operator = await accountOperator(deps.store, deps.state, accountId);
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

// The holder's open verification session (pending, or failed with a retry left), so that asking
// again does not pile up sessions; a new one otherwise. Its poll secret is never shown: nobody
// polls an account session, the holder's next POST /v1/credentials sees the result.
async function accountSession(deps: { store: Store; kycProvider: string }, accountId: string, now: Date): Promise<Session> {
  const [open] = await deps.store.read(sqlFile('identity/account_session_open'), [accountId, at(now), maxAttempts]);
  const reused = open ? await readSession(deps.store, String(open.id)) : null;
  if (reused) return reused;
  const created = await createSession(deps.store, { accountId, purpose: 'account', context: 'account verification', productName: null, kycProvider: deps.kycProvider, now });
  return created.session;
}

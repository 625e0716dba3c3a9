// Operator tokens (opc_…): random, shown once, stored as SHA-256, looked up by hash. Verification
// is a result union in the manner of pipeline/sanctions/lookup.ts: only an `active` token
// identifies an operator; whether that operator is acceptable is decided live by the caller.
import { randomUUID } from 'node:crypto';
import type { Store } from '../pipeline/store/store.ts';
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { at, dateOf } from './store-values.ts';

export const operatorTokenPrefix = 'opc_';
/** Spec 2.1: an operator token lives 24 hours by default. */
export const operatorTokenTtlSeconds = 86_400;

export interface IssuedToken {
  id: string;
  token: string;
  /** The first 8 characters, `opc_xxxx`, for listings. */
  prefix: string;
  expiresAt: Date;
}

export interface TokenGrant {
  operatorId: string;
  accountId: string;
  source: 'session';
  sessionId: string | null;
  label: string | null;
  now: Date;
  ttlSeconds: number;
}

/** Issues a token in the writer's transaction; its value leaves only in the result. */
export async function issueOperatorToken(tx: WriteTx, grant: TokenGrant): Promise<IssuedToken> {
  const token = newSecret(operatorTokenPrefix);
  const issued = { id: randomUUID(), token, prefix: token.slice(0, 8), expiresAt: new Date(grant.now.getTime() + grant.ttlSeconds * 1000) };
  await tx.run(sqlFile('identity/token_insert'), [
    issued.id,
    grant.operatorId,
    grant.accountId,
    grant.source,
    grant.sessionId,
    sha256Hex(token),
    issued.prefix,
    grant.label,
    at(grant.now),
    at(issued.expiresAt),
  ]);
  return issued;
}

export type TokenVerification =
  | { kind: 'active'; tokenId: string; operatorId: string; accountId: string; expiresAt: Date }
  /** Expired or revoked: not distinguished (spec 3.2). */
  | { kind: 'expired'; tokenId: string; operatorId: string }
  | { kind: 'unknown' };

export async function verifyOperatorToken(store: Store, token: string, now: Date): Promise<TokenVerification> {
  if (!token.startsWith(operatorTokenPrefix)) return { kind: 'unknown' };
  const [row] = await store.read(sqlFile('identity/token_by_hash'), [sha256Hex(token)]);
  if (!row) return { kind: 'unknown' };
  const expiresAt = dateOf(row.expires_at)!;
  if (row.revoked_at !== null || expiresAt.getTime() <= now.getTime()) return { kind: 'expired', tokenId: String(row.id), operatorId: String(row.operator_id) };
  return { kind: 'active', tokenId: String(row.id), operatorId: String(row.operator_id), accountId: String(row.account_id), expiresAt };
}

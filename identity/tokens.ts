// Operator tokens (opc_…): random, shown once, stored as SHA-256. The owner keeps every token's
// hash and state in memory (loaded at start, changed inside the writer's units with an undo if
// the transaction rolls back), so a token is verified without a query: a merchant's gate and its
// wallet captures ask on every paid request. Verification is a result union in the manner of
// pipeline/sanctions/lookup.ts: only an `active` token identifies an operator; whether that
// operator is acceptable is decided live by the caller.
//
// Three sources: `session` (the poll that delivers a verified session's token), `refresh` (an
// exchange of a refresh token, identity/refresh.ts) and `credential` (POST /v1/credentials, an
// account holder's own token with a label and a lifetime of days).
import { randomUUID } from 'node:crypto';
import { listValue } from '@duckdb/node-api';
import type { Store } from '../pipeline/store/store.ts';
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { at, dateOf, textOf } from './store-values.ts';
import { addTo } from './multimap.ts';

export const operatorTokenPrefix = 'opc_';
/** Spec 2.1: an operator token lives 24 hours by default. */
export const operatorTokenTtlSeconds = 86_400;

export type TokenSource = 'session' | 'refresh' | 'credential';

export interface TokenRecord {
  id: string;
  operatorId: string;
  accountId: string;
  source: TokenSource;
  sessionId: string | null;
  familyId: string | null;
  /** The first 8 characters, `opc_xxxx`, for listings. */
  prefix: string;
  label: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface IssuedToken {
  id: string;
  token: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface TokenGrant {
  operatorId: string;
  accountId: string;
  source: TokenSource;
  sessionId?: string | null;
  familyId?: string | null;
  label?: string | null;
  now: Date;
  ttlSeconds: number;
}

export type TokenVerification =
  | { kind: 'active'; token: TokenRecord }
  /** Expired or revoked: not distinguished (spec 3.2). */
  | { kind: 'expired'; token: TokenRecord }
  | { kind: 'unknown' };

export class TokenIndex {
  private readonly byHash = new Map<string, TokenRecord>();
  private readonly byId = new Map<string, TokenRecord>();
  // For listings and revocations without a pass over every token.
  private readonly credentialsByAccount = new Map<string, Set<TokenRecord>>();
  private readonly byFamily = new Map<string, Set<TokenRecord>>();
  // Uses not yet written to the store (last_used_at): one write per flush, not per use.
  private readonly used = new Set<TokenRecord>();
  private revokedRevision = 0;

  /**
   * Changes whenever a token is revoked, unrevoked by a rollback, or removed: what a capture under
   * a token counts for (identity/wallets/directory.ts) depends on nothing else here.
   */
  get revocations(): number {
    return this.revokedRevision;
  }

  static async load(store: Store): Promise<TokenIndex> {
    const index = new TokenIndex();
    for (const row of await store.read(sqlFile('identity/tokens_all'))) {
      index.put(String(row.token_hash), {
        id: String(row.id),
        operatorId: String(row.operator_id),
        accountId: String(row.account_id),
        source: String(row.source) as TokenSource,
        sessionId: textOf(row.session_id),
        familyId: textOf(row.family_id),
        prefix: String(row.prefix),
        label: textOf(row.label),
        createdAt: dateOf(row.created_at)!,
        expiresAt: dateOf(row.expires_at)!,
        revokedAt: dateOf(row.revoked_at),
        lastUsedAt: dateOf(row.last_used_at),
      });
    }
    return index;
  }

  /** Issues a token in the writer's transaction; its value leaves only in the result. */
  async issue(tx: WriteTx, grant: TokenGrant): Promise<IssuedToken> {
    const token = newSecret(operatorTokenPrefix);
    const hash = sha256Hex(token);
    const record: TokenRecord = {
      id: randomUUID(),
      operatorId: grant.operatorId,
      accountId: grant.accountId,
      source: grant.source,
      sessionId: grant.sessionId ?? null,
      familyId: grant.familyId ?? null,
      prefix: token.slice(0, 8),
      label: grant.label ?? null,
      createdAt: grant.now,
      expiresAt: new Date(grant.now.getTime() + grant.ttlSeconds * 1000),
      revokedAt: null,
      lastUsedAt: null,
    };
    await tx.run(sqlFile('identity/token_insert'), [
      record.id,
      record.operatorId,
      record.accountId,
      record.source,
      record.sessionId,
      hash,
      record.prefix,
      record.label,
      at(record.createdAt),
      at(record.expiresAt),
      record.familyId,
    ]);
    this.put(hash, record);
    tx.onRollback(() => this.remove(hash, record));
    return { id: record.id, token, prefix: record.prefix, createdAt: record.createdAt, expiresAt: record.expiresAt };
  }

  /** Revokes tokens (those not revoked yet) in the writer's transaction; returns those it revoked. */
  async revoke(tx: WriteTx, records: readonly TokenRecord[], now: Date): Promise<TokenRecord[]> {
    const open = records.filter((r) => r.revokedAt === null);
    if (open.length === 0) return [];
    await tx.run(sqlFile('identity/tokens_revoke'), [listValue(open.map((r) => r.id)), at(now)]);
    for (const record of open) record.revokedAt = now;
    this.revokedRevision++;
    tx.onRollback(() => {
      open.forEach((record) => (record.revokedAt = null));
      this.revokedRevision++;
    });
    return open;
  }

  verify(token: string, now: Date): TokenVerification {
    if (!token.startsWith(operatorTokenPrefix)) return { kind: 'unknown' };
    const record = this.byHash.get(sha256Hex(token));
    if (!record) return { kind: 'unknown' };
    return isActive(record, now) ? { kind: 'active', token: record } : { kind: 'expired', token: record };
  }

  get(id: string): TokenRecord | undefined {
    return this.byId.get(id);
  }

  /** Every token of a refresh family. */
  ofFamily(familyId: string): TokenRecord[] {
    return [...(this.byFamily.get(familyId) ?? [])];
  }

  /** An account's active credentials (POST /v1/credentials), newest first. */
  credentialsOf(accountId: string, now: Date): TokenRecord[] {
    return [...(this.credentialsByAccount.get(accountId) ?? [])]
      .filter((r) => isActive(r, now))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  /** Notes a use of an active token (last_used_at); written to the store by flushUses. */
  markUsed(record: TokenRecord, now: Date): void {
    if (record.lastUsedAt !== null && record.lastUsedAt >= now) return;
    record.lastUsedAt = now;
    this.used.add(record);
  }

  /** Writes the uses noted since the last flush, in one unit. */
  async flushUses(store: Store): Promise<void> {
    if (this.used.size === 0) return;
    const batch = [...this.used];
    this.used.clear();
    try {
      await store.write((tx) => tx.run(sqlFile('identity/tokens_used'), [listValue(batch.map((r) => r.id)), listValue(batch.map((r) => at(r.lastUsedAt!)))]));
    } catch (err) {
      for (const record of batch) this.used.add(record);
      throw err;
    }
  }

  /** Forgets tokens whose rows this unit deleted (identity/prune-credentials.ts); back if it rolls back. */
  forget(tx: WriteTx, tokens: readonly { id: string; hash: string }[]): void {
    const gone = tokens.flatMap(({ id, hash }) => {
      const record = this.byId.get(id);
      return record ? [{ hash, record }] : [];
    });
    if (gone.length === 0) return;
    for (const { hash, record } of gone) {
      this.remove(hash, record);
      this.used.delete(record);
    }
    tx.onRollback(() => {
      for (const { hash, record } of gone) this.put(hash, record);
      this.revokedRevision++;
    });
  }

  private put(hash: string, record: TokenRecord): void {
    this.byHash.set(hash, record);
    this.byId.set(record.id, record);
    if (record.source === 'credential') addTo(this.credentialsByAccount, record.accountId, record);
    if (record.familyId !== null) addTo(this.byFamily, record.familyId, record);
  }

  private remove(hash: string, record: TokenRecord): void {
    this.revokedRevision++;
    this.byHash.delete(hash);
    this.byId.delete(record.id);
    this.credentialsByAccount.get(record.accountId)?.delete(record);
    if (record.familyId !== null) this.byFamily.get(record.familyId)?.delete(record);
  }
}

export function isActive(record: TokenRecord, now: Date): boolean {
  return record.revokedAt === null && record.expiresAt.getTime() > now.getTime();
}

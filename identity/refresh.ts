// Refresh tokens (prt_…, spec 2.1): a client login, the poll that delivers a verified session's
// operator token, also starts a refresh family and hands out its first refresh token. The client
// exchanges it (POST /v1/tokens/refresh) for a fresh pair when the access token expired; each
// exchange spends the token it was given (single use) and returns the next generation. The family
// lives 90 days from the login, whatever the rotations (absolute, not sliding).
//
// Reuse detection (RFC 9700, 4.14.2): a spent refresh token presented again means two parties hold
// the family, and the service cannot tell the thief from the client, so it revokes the whole
// family: every refresh token and every access token issued from it. Also when two exchanges of
// one token race: exactly one of them rotates, the other revokes the family it just extended.
//
// Like identity/tokens.ts, the owner keeps the tokens' state in memory, changed inside the writer's
// units (undone on rollback): an exchange reads and spends its token in one unit of the writer.
import { randomUUID } from 'node:crypto';
import { listValue } from '@duckdb/node-api';
import type { Store } from '../pipeline/store/store.ts';
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newId, newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { at, dateOf } from './store-values.ts';
import { operatorTokenTtlSeconds, type IssuedToken, type TokenIndex } from './tokens.ts';

export const refreshTokenPrefix = 'prt_';
/** Spec 2.1 / 8: a refresh token lives 90 days. */
export const refreshFamilyTtlMs = 90 * 86_400_000;

interface RefreshRecord {
  id: string;
  familyId: string;
  generation: number;
  operatorId: string;
  accountId: string;
  familyExpiresAt: Date;
  spentAt: Date | null;
  revokedAt: Date | null;
}

export interface IssuedRefresh {
  token: string;
  familyId: string;
  expiresAt: Date;
}

export type Exchange =
  | { kind: 'rotated'; access: IssuedToken; refresh: IssuedRefresh }
  /** A spent token again: the family is revoked now (in this transaction, so it commits). */
  | { kind: 'reused'; familyId: string }
  /** Past the family's 90 days, or its family was revoked before. */
  | { kind: 'expired' }
  | { kind: 'unknown' };

export class RefreshIndex {
  private readonly byHash = new Map<string, RefreshRecord>();
  private readonly families = new Map<string, RefreshRecord[]>();

  constructor(private readonly tokens: TokenIndex) {}

  static async load(store: Store, tokens: TokenIndex): Promise<RefreshIndex> {
    const index = new RefreshIndex(tokens);
    for (const row of await store.read(sqlFile('identity/refresh_all'))) {
      index.put(String(row.token_hash), {
        id: String(row.id),
        familyId: String(row.family_id),
        generation: Number(row.generation),
        operatorId: String(row.operator_id),
        accountId: String(row.account_id),
        familyExpiresAt: dateOf(row.family_expires_at)!,
        spentAt: dateOf(row.spent_at),
        revokedAt: dateOf(row.revoked_at),
      });
    }
    return index;
  }

  /** A login: a new family and its first refresh token, for the operator's first access token. */
  startFamily(tx: WriteTx, grant: { operatorId: string; accountId: string; now: Date }): Promise<IssuedRefresh> {
    const familyId = newId('fam_');
    return this.issue(tx, { ...grant, familyId, generation: 1, familyExpiresAt: new Date(grant.now.getTime() + refreshFamilyTtlMs) });
  }

  /** Spends `token` and issues the next pair, or says why not; run inside one writer unit. */
  async exchange(tx: WriteTx, token: string, now: Date): Promise<Exchange> {
    const record = token.startsWith(refreshTokenPrefix) ? this.byHash.get(sha256Hex(token)) : undefined;
    if (!record) return { kind: 'unknown' };
    if (record.revokedAt !== null || now >= record.familyExpiresAt) return { kind: 'expired' };
    if (record.spentAt !== null) {
      await this.revokeFamily(tx, record.familyId, now);
      return { kind: 'reused', familyId: record.familyId };
    }
    await tx.run(sqlFile('identity/refresh_spend'), [record.id, at(now)]);
    record.spentAt = now;
    tx.onRollback(() => (record.spentAt = null));
    const refresh = await this.issue(tx, { ...record, generation: record.generation + 1, now });
    const access = await this.tokens.issue(tx, {
      operatorId: record.operatorId,
      accountId: record.accountId,
      source: 'refresh',
      familyId: record.familyId,
      now,
      ttlSeconds: operatorTokenTtlSeconds,
    });
    return { kind: 'rotated', access, refresh };
  }

  private async revokeFamily(tx: WriteTx, familyId: string, now: Date): Promise<void> {
    const members = (this.families.get(familyId) ?? []).filter((r) => r.revokedAt === null);
    if (members.length > 0) {
      await tx.run(sqlFile('identity/refresh_revoke'), [listValue(members.map((r) => r.id)), at(now)]);
      for (const member of members) member.revokedAt = now;
      tx.onRollback(() => members.forEach((member) => (member.revokedAt = null)));
    }
    await this.tokens.revoke(tx, this.tokens.ofFamily(familyId), now);
  }

  private async issue(
    tx: WriteTx,
    grant: { familyId: string; generation: number; operatorId: string; accountId: string; familyExpiresAt: Date; now: Date },
  ): Promise<IssuedRefresh> {
    const token = newSecret(refreshTokenPrefix);
    const hash = sha256Hex(token);
    const record: RefreshRecord = {
      id: randomUUID(),
      familyId: grant.familyId,
      generation: grant.generation,
      operatorId: grant.operatorId,
      accountId: grant.accountId,
      familyExpiresAt: grant.familyExpiresAt,
      spentAt: null,
      revokedAt: null,
    };
    await tx.run(sqlFile('identity/refresh_insert'), [
      record.id,
      record.familyId,
      record.generation,
      record.operatorId,
      record.accountId,
      hash,
      at(grant.now),
      at(record.familyExpiresAt),
    ]);
    this.put(hash, record);
    tx.onRollback(() => {
      this.byHash.delete(hash);
      const family = this.families.get(record.familyId)!;
      family.splice(family.indexOf(record), 1);
    });
    return { token, familyId: record.familyId, expiresAt: record.familyExpiresAt };
  }

  /** Forgets refresh tokens whose rows this unit deleted (identity/prune-credentials.ts); back if it rolls back. */
  forget(tx: WriteTx, hashes: readonly string[]): void {
    const gone = hashes.flatMap((hash) => {
      const record = this.byHash.get(hash);
      return record ? [{ hash, record }] : [];
    });
    for (const { hash, record } of gone) {
      this.byHash.delete(hash);
      const family = this.families.get(record.familyId)!.filter((r) => r !== record);
      if (family.length === 0) this.families.delete(record.familyId);
      else this.families.set(record.familyId, family);
    }
    if (gone.length > 0) tx.onRollback(() => gone.forEach(({ hash, record }) => this.put(hash, record)));
  }

  private put(hash: string, record: RefreshRecord): void {
    this.byHash.set(hash, record);
    const family = this.families.get(record.familyId) ?? [];
    family.push(record);
    this.families.set(record.familyId, family);
  }
}

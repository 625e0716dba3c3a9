// Accounts and their API keys. A key is shown once at creation and stored only as its SHA-256;
// requests are authenticated against an in-memory index of hashes loaded from the store at start
// and updated after each committed write, so verification never waits on the database.
import type { Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newId, newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { isPlanName, planNames, type PlanName } from './plans.ts';
import { compileAllowlist, loadIpAllowlists, type IpAllowlist } from './security/ip-allowlist.ts';
import { overrideColumns, overridesOf, type LimitOverrides } from './usage/limits.ts';

export const apiKeyPrefix = 'rpk_';

export interface CreatedAccount {
  id: string;
  api_key: string;
  plan: PlanName;
  name: string | null;
}

export interface KeyOwner {
  keyId: string;
  accountId: string;
  plan: PlanName;
  status: 'active' | 'cancelled';
  /** Enterprise IP allowlist (api/security/ip-allowlist.ts); absent or null = any address. */
  ipAllowlist?: IpAllowlist | null;
  /** Enterprise custom limits (api/usage/limits.ts); absent or null = the plan's. */
  overrides?: LimitOverrides | null;
}

export type KeyVerification = { valid: true; owner: KeyOwner } | { valid: false; code: 'missing' | 'unknown' };

export interface ApiKeyIndex {
  verify(key: string | undefined): KeyVerification;
  add(hash: string, owner: KeyOwner): void;
  /** Replaces the IP allowlist of a key after its change committed ([] = none). */
  setIpAllowlist(keyId: string, cidrs: readonly string[]): void;
  /** Replaces the limit overrides of every key of an account after their change committed. */
  setLimitOverrides(accountId: string, overrides: LimitOverrides | null): void;
}

export class UnknownPlanError extends Error {
  override name = 'UnknownPlanError';
}

export async function loadApiKeyIndex(store: Store): Promise<ApiKeyIndex> {
  const rows = await store.read(
    `SELECT k.key_hash, k.id AS key_id, a.id AS account_id, a.plan, a.status, ${overrideColumns}
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.revoked_at IS NULL`,
  );
  // Every rule of a request reads the plan (api/plans.ts): a plan this version does not know (a row
  // edited by hand, or written by a newer version) would fail each of that account's requests, so
  // the server refuses to start on it instead, naming the accounts.
  const unknown = rows.filter((r) => !isPlanName(String(r.plan)));
  if (unknown.length > 0) {
    const listed = [...new Set(unknown.map((r) => `${String(r.account_id)} (plan "${String(r.plan)}")`))].join(', ');
    throw new UnknownPlanError(`accounts with a plan this version does not know: ${listed}; known plans: ${planNames.join(', ')}. Correct those accounts rows, or run the version that wrote them.`);
  }
  const byHash = new Map<string, KeyOwner>();
  const allowlists = await loadIpAllowlists(store);
  for (const r of rows) {
    byHash.set(String(r.key_hash), {
      keyId: String(r.key_id),
      accountId: String(r.account_id),
      plan: r.plan as PlanName,
      status: r.status as KeyOwner['status'],
      ipAllowlist: allowlists.get(String(r.key_id)) ?? null,
      overrides: overridesOf(r),
    });
  }
  return {
    verify(key) {
      if (!key) return { valid: false, code: 'missing' };
      // Looking up the hash, not the key, means no early-exit string comparison on the secret.
      const owner = byHash.get(sha256Hex(key));
      return owner ? { valid: true, owner } : { valid: false, code: 'unknown' };
    },
    add(hash, owner) {
      byHash.set(hash, owner);
    },
    setIpAllowlist(keyId, cidrs) {
      for (const owner of byHash.values()) if (owner.keyId === keyId) owner.ipAllowlist = compileAllowlist(cidrs);
    },
    setLimitOverrides(accountId, overrides) {
      for (const owner of byHash.values()) if (owner.accountId === accountId) owner.overrides = overrides;
    },
  };
}

/** Creates an account with one API key; resolves after both rows committed. */
export async function createAccount(
  store: Store,
  input: { plan: PlanName; name?: string | null },
  index?: ApiKeyIndex,
): Promise<CreatedAccount> {
  const accountId = newId('acc_');
  const keyId = newId('key_');
  const apiKey = newSecret(apiKeyPrefix);
  const hash = sha256Hex(apiKey);
  const name = input.name ?? null;
  await store.write(async (tx) => {
    await tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, $2, $3, 'active', utc_now())`, [accountId, name, input.plan]);
    await tx.run(`INSERT INTO api_keys VALUES ($1, $2, $3, $4, utc_now(), NULL)`, [
      keyId,
      accountId,
      hash,
      apiKey.slice(0, apiKeyPrefix.length + 6),
    ]);
  });
  index?.add(hash, { keyId, accountId, plan: input.plan, status: 'active' });
  return { id: accountId, api_key: apiKey, plan: input.plan, name };
}

export class UnknownAccountIdError extends Error {
  override name = 'UnknownAccountIdError';
}

/** Changes an account's display name (shown on the verify page of its sessions). */
export async function renameAccount(store: Store, accountId: string, name: string): Promise<{ id: string; name: string; plan: string }> {
  return store.write(async (tx) => {
    const [account] = await tx.all(sqlFile('identity/account_by_id'), [accountId]);
    if (!account) throw new UnknownAccountIdError(`no account ${accountId}`);
    await tx.run(sqlFile('identity/account_rename'), [accountId, name]);
    return { id: accountId, name, plan: String(account.plan) };
  });
}

// IP allowlists per API key (spec section 8, enterprise plans). A key with a non-empty list is
// accepted only from a socket whose remote address falls in one of its networks; anything else
// is 403 ip_not_allowed. Lists are kept in the in-memory key index (api/accounts.ts), so the check
// is a few integer comparisons and never reads the database.
//
// The address checked is the client's (ctx.ip, api/security/client-address.ts): the TCP peer, or
// behind trusted reverse proxies (TRUST_PROXY_HOPS) the address they forwarded; X-Forwarded-For is
// ignored otherwise. IPv4-mapped IPv6 peers (::ffff:203.0.113.7, what a dual-stack socket reports)
// are matched as the IPv4 address.
import ipaddr from 'ipaddr.js';
import type { Middleware } from 'koa';
import type { Store } from '../../pipeline/store/store.ts';
import type { WriteTx } from '../../pipeline/store/group-commit.ts';
import { ApiError } from '../errors.ts';
import { hasEntitlement, type PlanName } from '../plans.ts';

/** At most this many networks per key. */
export const maxAllowlistEntries = 100;

export class AllowlistEntryError extends Error {
  override name = 'AllowlistEntryError';
}

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Parses one address or network (IPv4 or IPv6, with or without /prefix) into its canonical
 * network form: host bits cleared, a bare address as /32 or /128, IPv4-mapped IPv6 as IPv4.
 */
export function normaliseAllowlistEntry(entry: string): string {
  const text = entry.trim();
  let network: Network;
  try {
    if (text.includes('/')) {
      if (!ipaddr.isValidCIDR(text)) throw new Error();
      network = ipaddr.parseCIDR(text);
    } else {
      if (!ipaddr.isValid(text)) throw new Error();
      const address = ipaddr.parse(text);
      network = [address, address.kind() === 'ipv4' ? 32 : 128];
    }
  } catch {
    throw new AllowlistEntryError(`"${entry}" is not an IPv4 or IPv6 address or CIDR network (e.g. 203.0.113.0/24, 2001:db8::/32)`);
  }
  let [address, bits] = network;
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) {
    address = address.toIPv4Address();
    bits -= 96;
  }
  if (address instanceof ipaddr.IPv6 && address.zoneId) throw new AllowlistEntryError(`"${entry}": zone ids (%…) are not allowed`);
  const base =
    address instanceof ipaddr.IPv4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${base.toString()}/${bits}`;
}

/** Validates and normalises a whole list: canonical, de-duplicated, in the order given. */
export function normaliseAllowlist(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const network = normaliseAllowlistEntry(entry);
    if (!out.includes(network)) out.push(network);
  }
  if (out.length > maxAllowlistEntries) throw new AllowlistEntryError(`at most ${maxAllowlistEntries} networks per key (got ${out.length})`);
  return out;
}

/** "203.0.113.0/24, 2001:db8::/32" → its entries (commas and/or whitespace separate). */
export function splitAllowlistArgument(value: string): string[] {
  return value.split(/[\s,]+/).filter((part) => part.length > 0);
}

export interface IpAllowlist {
  /** Canonical networks, as stored. */
  readonly cidrs: readonly string[];
  /** Whether a socket remote address (IPv4, IPv6 or IPv4-mapped IPv6) is inside one of them. */
  allows(remoteAddress: string | undefined): boolean;
}

/** Compiles canonical networks into a matcher; an empty list is no allowlist (null). */
export function compileAllowlist(cidrs: readonly string[]): IpAllowlist | null {
  if (cidrs.length === 0) return null;
  const networks = cidrs.map((cidr) => ipaddr.parseCIDR(cidr));
  return {
    cidrs: [...cidrs],
    allows(remoteAddress) {
      if (!remoteAddress || !ipaddr.isValid(remoteAddress)) return false;
      // process() turns ::ffff:a.b.c.d into the IPv4 address a.b.c.d.
      const address = ipaddr.process(remoteAddress);
      return networks.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
    },
  };
}

/** Plans that may hold allowlists: the ip_allowlists entitlement of api/plans.ts (spec 8: enterprise). */
export function planAllowsIpAllowlist(plan: PlanName): boolean {
  return hasEntitlement(plan, 'ip_allowlists');
}

/** The lists in force, per key id (keys whose newest list is empty are left out). */
export async function loadIpAllowlists(store: Store): Promise<Map<string, IpAllowlist>> {
  const rows = await store.read(
    `SELECT key_id, cidrs FROM api_key_ip_allowlists
      QUALIFY row_number() OVER (PARTITION BY key_id ORDER BY version DESC) = 1`,
  );
  const byKey = new Map<string, IpAllowlist>();
  for (const row of rows) {
    const list = compileAllowlist((row.cidrs as string[]) ?? []);
    if (list) byKey.set(String(row.key_id), list);
  }
  return byKey;
}

/** Koa middleware for keyed routes, after the API key check has set ctx.state.account. */
export function enforceIpAllowlist(): Middleware<{ account?: { ipAllowlist?: IpAllowlist | null } }> {
  // Not async: see api/middleware/request-id.ts.
  return (ctx, next) => {
    const list = ctx.state.account?.ipAllowlist;
    if (list && !list.allows(ctx.ip)) {
      throw new ApiError('ip_not_allowed', `this API key may not be used from ${ctx.ip || 'this address'}; its IP allowlist does not include it`);
    }
    return next();
  };
}

export interface AllowlistChange {
  key_id: string;
  account_id: string;
  plan: PlanName;
  allowlist: string[];
}

export class AllowlistRefusedError extends Error {
  override name = 'AllowlistRefusedError';
}

/**
 * Sets (cidrs non-empty), clears (cidrs = []) or, with cidrs undefined, only reads the allowlist
 * of one key, or of every active key of an account. Setting one needs an enterprise account.
 */
export async function changeIpAllowlist(
  store: Store,
  target: { keyId?: string; accountId?: string },
  cidrs: readonly string[] | undefined,
): Promise<AllowlistChange[]> {
  const normalised = cidrs === undefined ? undefined : normaliseAllowlist(cidrs);
  const unit = async (tx: Pick<WriteTx, 'all' | 'run'>): Promise<AllowlistChange[]> => {
    const where = target.keyId !== undefined ? 'k.id = $1' : 'k.account_id = $1';
    const keys = await tx.all(
      `SELECT k.id AS key_id, a.id AS account_id, a.plan,
              (SELECT cidrs FROM api_key_ip_allowlists l WHERE l.key_id = k.id ORDER BY version DESC LIMIT 1) AS cidrs,
              (SELECT max(version) FROM api_key_ip_allowlists l WHERE l.key_id = k.id) AS version
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE ${where} AND k.revoked_at IS NULL
        ORDER BY k.id`,
      [(target.keyId ?? target.accountId)!],
    );
    if (keys.length === 0) {
      throw new AllowlistRefusedError(target.keyId !== undefined ? `no active API key ${target.keyId}` : `no account ${target.accountId} with an active API key`);
    }
    const changes: AllowlistChange[] = [];
    for (const key of keys) {
      const plan = key.plan as PlanName;
      if (normalised && normalised.length > 0 && !planAllowsIpAllowlist(plan)) {
        throw new AllowlistRefusedError(`IP allowlists are an enterprise feature; account ${String(key.account_id)} has plan ${plan}`);
      }
      const current = (key.cidrs as string[] | null) ?? [];
      if (normalised !== undefined) {
        await tx.run(`INSERT INTO api_key_ip_allowlists VALUES ($1, $2, from_json($3, '["VARCHAR"]'), utc_now())`, [
          String(key.key_id),
          Number(key.version ?? 0) + 1,
          JSON.stringify(normalised),
        ]);
      }
      changes.push({ key_id: String(key.key_id), account_id: String(key.account_id), plan, allowlist: normalised ?? current });
    }
    return changes;
  };
  if (normalised === undefined) {
    return unit({ all: (sql, params) => store.read(sql, params), run: () => Promise.reject(new Error('read only')) });
  }
  return store.write(unit);
}

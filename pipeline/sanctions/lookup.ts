// Wallet-address sanctions check (spec 2.4.3), answered from an in-memory index of
// sanctioned_addresses. At most every `recheckMs` a call asks the store whether a newer load
// exists and, if so, reloads the index; the load row and the rows are read in one snapshot.
//
// `unavailable` is its own status, never a variant of `clear`: it is returned when no list was
// ever loaded, or when the store could not be read, and the caller must fail closed on it.
import type { Store } from '../store/store.ts';
import { readRows, type Row } from '../store/rows.ts';
import { sqlFile } from '../store/sql-files.ts';
import { listingKey, normaliseAddress, sanctionsFamilies, type SanctionsFamily } from './address-family.ts';

export type SanctionsCheck =
  | { status: 'clear' }
  | { status: 'listed'; sanctioned: true; ofac_label: string; sdn_uid: string; listed_at: string | null }
  | { status: 'unavailable'; reason: string };

export interface SanctionsFreshness {
  /** When the list in use was loaded (ISO-8601, UTC): the last refresh that changed it. */
  loadedAt: string;
  ageSeconds: number;
}

export interface SanctionsLookup {
  check(address: string, family: SanctionsFamily): Promise<SanctionsCheck>;
  /** null when no list was ever loaded; throws when the store cannot be read. */
  freshness(): Promise<SanctionsFreshness | null>;
}

export interface SanctionsLookupOptions {
  /** How long an answer about the newest load is trusted before asking the store again. */
  recheckMs?: number;
  now?: () => number;
}

interface Listing {
  ofac_label: string;
  sdn_uid: string;
  listed_at: string | null;
}

interface Index {
  version: string;
  loadedAt: string;
  byKey: Map<string, Listing>;
}

export function createSanctionsLookup(store: Store, options: SanctionsLookupOptions = {}): SanctionsLookup {
  const recheckMs = options.recheckMs ?? 5_000;
  const now = options.now ?? Date.now;
  let index: Index | null = null;
  let checkedAt = -Infinity;
  let syncing: Promise<Index | null> | null = null;

  // The index as of at most recheckMs ago, or null when no list is loaded; throws if the store fails.
  const current = (): Promise<Index | null> => {
    if (now() - checkedAt < recheckMs) return Promise.resolve(index);
    syncing ??= sync().finally(() => (syncing = null));
    return syncing;
  };

  const sync = async (): Promise<Index | null> => {
    const next = await store.withReadConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        const [latest] = readRows(await conn.runAndReadAll(sqlFile('sanctions/latest_load')));
        if (!latest) return null;
        if (index?.version === String(latest.version)) return index;
        return buildIndex(latest, readRows(await conn.runAndReadAll(sqlFile('sanctions/listed_addresses'))));
      } finally {
        await conn.run('ROLLBACK').catch(() => undefined);
      }
    });
    index = next;
    checkedAt = now();
    return next;
  };

  return {
    async check(address, family) {
      if (!sanctionsFamilies.includes(family)) throw new TypeError(`unknown address family ${JSON.stringify(family)}`);
      let list: Index | null;
      try {
        list = await current();
      } catch (err) {
        return { status: 'unavailable', reason: `the sanctions list could not be read: ${(err as Error).message}` };
      }
      if (!list) return { status: 'unavailable', reason: 'no sanctions list has been loaded' };
      const hit = list.byKey.get(listingKey(family, normaliseAddress(address)));
      return hit ? { status: 'listed', sanctioned: true, ...hit } : { status: 'clear' };
    },
    async freshness() {
      const list = await current();
      if (!list) return null;
      return { loadedAt: list.loadedAt, ageSeconds: Math.max(0, Math.round((now() - Date.parse(list.loadedAt)) / 1000)) };
    },
  };
}

function buildIndex(latest: Row, rows: Row[]): Index {
  const byKey = new Map<string, Listing>();
  for (const row of rows) {
    const k = listingKey(String(row.family), String(row.address));
    // Rows come ordered so that the first of a key (either spelling) is the listing to report.
    if (!byKey.has(k)) {
      byKey.set(k, { ofac_label: String(row.ofac_label), sdn_uid: String(row.sdn_uid), listed_at: row.listed_at === null ? null : String(row.listed_at) });
    }
  }
  return { version: String(latest.version), loadedAt: String(latest.loaded_at), byKey };
}


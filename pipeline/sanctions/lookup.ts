// Wallet-address sanctions check (spec 2.4.3), answered from an in-memory index of
// sanctioned_addresses, rebuilt when a newer load exists (pipeline/store/reloading-index.ts).
//
// `unavailable` is its own status, never a variant of `clear`: it is returned when no list was
// ever loaded, or when the store could not be read, and the caller must fail closed on it.
import type { Store } from '../store/store.ts';
import type { Row } from '../store/rows.ts';
import { createReloadingIndex, type ReloadingIndexOptions } from '../store/reloading-index.ts';
import { listingKey, normaliseAddress, sanctionsFamilies, type SanctionsFamily } from './address-family.ts';

export type SanctionsCheck =
  | { status: 'clear' }
  | { status: 'listed'; sanctioned: true; ofac_label: string; sdn_uid: string; listed_at: string | null }
  | { status: 'unavailable'; reason: string };

export interface SanctionsFreshness {
  /** When the list in use was loaded (ISO-8601, UTC): the last refresh that changed it. */
  loadedAt: string;
  /** When a refresh last confirmed it current (ISO-8601, UTC), changed or not. */
  checkedAt: string;
  /** Since checkedAt. */
  ageSeconds: number;
}

export interface SanctionsLookup {
  check(address: string, family: SanctionsFamily): Promise<SanctionsCheck>;
  /** null when no list was ever loaded; throws when the store cannot be read. */
  freshness(): Promise<SanctionsFreshness | null>;
}

export type SanctionsLookupOptions = ReloadingIndexOptions;

interface Listing {
  ofac_label: string;
  sdn_uid: string;
  listed_at: string | null;
}

interface Index {
  loadedAt: string;
  /** The newest successful refresh, changed or not. */
  checkedAt: string;
  byKey: Map<string, Listing>;
}

export function createSanctionsLookup(store: Store, options: SanctionsLookupOptions = {}): SanctionsLookup {
  const now = options.now ?? Date.now;
  const lists = createReloadingIndex(
    store,
    { latest: 'sanctions/latest_load', rows: 'sanctions/listed_addresses', build: buildIndex, touch: (index, latest) => (index.checkedAt = String(latest.checked_at)) },
    options,
  );

  return {
    async check(address, family) {
      if (!sanctionsFamilies.includes(family)) throw new TypeError(`unknown address family ${JSON.stringify(family)}`);
      let list: Index | null;
      try {
        list = await lists.current();
      } catch (err) {
        return { status: 'unavailable', reason: `the sanctions list could not be read: ${(err as Error).message}` };
      }
      if (!list) return { status: 'unavailable', reason: 'no sanctions list has been loaded' };
      const hit = list.byKey.get(listingKey(family, normaliseAddress(address)));
      return hit ? { status: 'listed', sanctioned: true, ...hit } : { status: 'clear' };
    },
    async freshness() {
      const list = await lists.current();
      if (!list) return null;
      return { loadedAt: list.loadedAt, checkedAt: list.checkedAt, ageSeconds: Math.max(0, Math.round((now() - Date.parse(list.checkedAt)) / 1000)) };
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
  return { loadedAt: String(latest.loaded_at), checkedAt: String(latest.checked_at), byKey };
}


// refresh-sanctions-list: reads a source, and when its content hash differs from the last load,
// replaces sanctioned_addresses whole and records the load, in one transaction. Everything that
// can fail (reading, parsing, an empty result) happens before that transaction, and the
// transaction itself commits all or nothing, so a failed refresh leaves the previous list.
//
// A list that drops more than a tenth of the loaded addresses is refused unless the caller
// confirms it (allowShrink): a file cut short at a line boundary (a text list, or sdn.csv without
// its trailing Ctrl-Z) parses as a shorter list, and loading it would clear real hits. Real
// delistings of that size are rare and worth a person's look; until then the previous list,
// which errs on the side of a hit, stays.
import { dateValue, timestampValue, type DuckDBValue } from '@duckdb/node-api';
import type { Store } from '../store/store.ts';
import { sqlFile } from '../store/sql-files.ts';
import type { Logger } from '../log.ts';
import type { ListedAddress } from './listing.ts';
import { familyOfListed, listingKey, type SanctionsFamily } from './address-family.ts';
import { readListings, type SanctionsSource } from './read-listings.ts';
import { defaultSourceLimits, type SourceLimits } from './read-source.ts';

export type { SanctionsSource } from './read-listings.ts';

/** The share of the loaded addresses a refresh may drop without allowShrink. */
export const maxUnconfirmedDrop = 0.1;

export interface RefreshOptions {
  limits?: SourceLimits;
  /** Load the list even when it drops more than maxUnconfirmedDrop of the loaded addresses. */
  allowShrink?: boolean;
}

/** A refresh refused because the new list drops too many of the loaded addresses. */
export class ListShrinkError extends Error {
  override name = 'ListShrinkError';
}

export interface RefreshResult {
  changed: boolean;
  /** Distinct (family, address) pairs; an address listed under several labels or entries counts once. */
  addressCount: number;
  /** Distinct SDN entries with at least one address (entries the source does not name are not counted). */
  entryCount: number;
  sha256: string;
}

interface Row {
  family: SanctionsFamily;
  address: string;
  label: string;
  sdnUid: string;
  listedAt: string | null;
}

export async function refreshSanctionsList(
  deps: { store: Store; log: Logger },
  source: SanctionsSource,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const log = deps.log.child('sanctions');
  const read = await readListings(source, options.limits ?? defaultSourceLimits);
  if (read.warnings.length > 0) log.warn('sanctions source has defects', { source: read.description, warnings: read.warnings });

  const rows = toRows(read.listed);
  // An empty list would clear every hit: it is a broken source, never a real publication.
  if (rows.length === 0) throw new Error(`${read.description}: no digital currency addresses found; keeping the previous list`);
  const listed = new Set(rows.map((r) => listingKey(r.family, r.address)));
  const counts = {
    addressCount: listed.size,
    entryCount: new Set(rows.map((r) => r.sdnUid).filter((uid) => uid !== '')).size,
  };
  const unknown = rows.filter((r) => r.family === 'unknown');
  if (unknown.length > 0) {
    log.warn('addresses of no known family: no lookup can match them', { addresses: unknown.map((r) => `${r.label} ${r.address}`) });
  }

  const changed = await deps.store.write(async (tx) => {
    const [last] = await tx.all(sqlFile('sanctions/latest_load'));
    if (last?.source_sha256 === read.sha256) return false;
    if (!options.allowShrink) {
      const loaded = (await tx.all(sqlFile('sanctions/loaded_addresses'))) as { family: string; address: string }[];
      refuseSharpDrop(read.description, loaded, listed);
    }
    await tx.run('DELETE FROM sanctioned_addresses');
    await tx.append('sanctioned_addresses', rows.map(toValues));
    await tx.append('sanctions_list_loads', [
      [timestampValue(BigInt(Date.now()) * 1000n), read.description, read.sha256, counts.addressCount, counts.entryCount],
    ]);
    return true;
  });

  const summary = { source: read.description, sha256: read.sha256, ...counts, rowsByFamily: rowsByFamily(rows) };
  log.info(changed ? 'sanctions list replaced' : 'sanctions list unchanged', summary);
  return { changed, ...counts, sha256: read.sha256 };
}

function refuseSharpDrop(description: string, loaded: { family: string; address: string }[], kept: Set<string>): void {
  const dropped = loaded.filter((r) => !kept.has(listingKey(r.family, r.address))).length;
  if (dropped <= loaded.length * maxUnconfirmedDrop) return;
  throw new ListShrinkError(
    `${description}: lacks ${dropped} of the ${loaded.length} loaded addresses (more than ${maxUnconfirmedDrop * 100}%); ` +
      'a download cut short reads as a shorter list, so the previous list stays. If OFAC did delist them, ' +
      'refresh with {"allowShrink": true}',
  );
}

// One row per (family, address, label, entry); the same listing twice (e.g. an EVM address in two
// cases) is one row, keeping the earliest date.
function toRows(listed: ListedAddress[]): Row[] {
  const byKey = new Map<string, Row>();
  for (const item of listed) {
    const { family, address } = familyOfListed(item.label, item.address);
    const key = [family, address, item.label, item.sdnUid].join('\u0000');
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { family, address, label: item.label, sdnUid: item.sdnUid, listedAt: item.listedAt });
    else if (item.listedAt !== null && (seen.listedAt === null || item.listedAt < seen.listedAt)) seen.listedAt = item.listedAt;
  }
  return [...byKey.values()];
}

function toValues(row: Row): DuckDBValue[] {
  return [row.family, row.address, row.label, row.sdnUid, row.listedAt === null ? null : toDate(row.listedAt)];
}

function toDate(iso: string): DuckDBValue {
  const [year, month, day] = iso.split('-').map(Number);
  return dateValue({ year: year!, month: month!, day: day! });
}

function rowsByFamily(rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.family] = (counts[row.family] ?? 0) + 1;
  return counts;
}

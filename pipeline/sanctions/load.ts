// refresh-sanctions-list: reads a source, and when its content hash differs from the last load,
// replaces sanctioned_addresses whole and records the load, in one transaction. With a names
// source too, the SDN names are read the same way and, in the same transaction, replaced when
// their own source's hash changed (pipeline/sanctions/load-names.ts). Everything that can fail
// (reading, parsing, an empty result) happens before that transaction, and the transaction itself
// commits all or nothing, so a failed refresh leaves the previous addresses and names.
//
// A list that drops more than a tenth of the loaded addresses (or names) is refused unless the
// caller confirms it (allowShrink; pipeline/sanctions/sharp-drop.ts says why).
import { dateValue, timestampValue, type DuckDBValue } from '@duckdb/node-api';
import type { Store } from '../store/store.ts';
import { sqlFile } from '../store/sql-files.ts';
import type { Logger } from '../log.ts';
import type { ListedAddress } from './listing.ts';
import { familyOfListed, listingKey, type SanctionsFamily } from './address-family.ts';
import { readListings, type SanctionsSource, type SourceListings } from './read-listings.ts';
import { readNames, type NamesSource, type SourceNames } from './read-names.ts';
import { namesToLoad, replaceNamesIfChanged, type NamesRefreshResult, type NamesToLoad } from './load-names.ts';
import { defaultSourceLimits, type SourceLimits } from './read-source.ts';
import { refuseSharpDrop } from './sharp-drop.ts';

export type { SanctionsSource } from './read-listings.ts';
export type { NamesSource } from './read-names.ts';
export { ListShrinkError, maxUnconfirmedDrop } from './sharp-drop.ts';

export interface RefreshOptions {
  limits?: SourceLimits;
  /** Load the list even when it drops more than maxUnconfirmedDrop of the loaded addresses or names. */
  allowShrink?: boolean;
  /** Where the SDN names come from; without it the names are left as they are. */
  names?: NamesSource;
}

export interface RefreshResult {
  changed: boolean;
  /** Distinct (family, address) pairs; an address listed under several labels or entries counts once. */
  addressCount: number;
  /** Distinct SDN entries with at least one address (entries the source does not name are not counted). */
  entryCount: number;
  sha256: string;
  /** The names half, when a names source was given. */
  names?: NamesRefreshResult;
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
  const limits = options.limits ?? defaultSourceLimits;
  const read = await readListings(source, limits);
  if (read.warnings.length > 0) log.warn('sanctions source has defects', { source: read.description, warnings: read.warnings });
  const names = options.names === undefined ? null : await namesOf(options.names, source, read, limits);
  if (names && names.read.warnings.length > 0) log.warn('sanctions names source has defects', { source: names.read.description, warnings: names.read.warnings });

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

  const outcome = await deps.store.write(async (tx) => {
    let changed = false;
    const [last] = await tx.all(sqlFile('sanctions/latest_load'));
    if (last?.source_sha256 !== read.sha256) {
      if (!options.allowShrink) {
        const loaded = (await tx.all(sqlFile('sanctions/loaded_addresses'))) as { family: string; address: string }[];
        refuseSharpDrop(read.description, loaded.map((r) => listingKey(r.family, r.address)), listed, 'addresses');
      }
      await tx.run('DELETE FROM sanctioned_addresses');
      await tx.append('sanctioned_addresses', rows.map(toValues));
      await tx.append('sanctions_list_loads', [
        [timestampValue(BigInt(Date.now()) * 1000n), read.description, read.sha256, counts.addressCount, counts.entryCount],
      ]);
      changed = true;
    }
    const namesResult = names ? await replaceNamesIfChanged(tx, names.read, names.rows, options.allowShrink ?? false) : undefined;
    // Changed or not, the list in use is confirmed current now (its age for assess's signer check).
    await tx.append('sanctions_list_checks', [[timestampValue(BigInt(Date.now()) * 1000n), read.sha256]]);
    return { changed, namesResult };
  });

  const { changed, namesResult } = outcome;
  const summary = {
    source: read.description,
    sha256: read.sha256,
    ...counts,
    rowsByFamily: rowsByFamily(rows),
    ...(names && namesResult ? { names: { source: names.read.description, ...namesResult, byType: namesByType(names.rows.names) } } : {}),
  };
  const namesPart = namesResult === undefined ? '' : `, names ${namesResult.changed ? 'replaced' : 'unchanged'}`;
  log.info(`sanctions list ${changed ? 'replaced' : 'unchanged'}${namesPart}`, summary);
  return { changed, ...counts, sha256: read.sha256, ...(namesResult ? { names: namesResult } : {}) };
}

// The names of the names source and the rows to load (throws when it has none); those of the
// address pass when it is the same sdn_advanced.xml, so a 100 MB file is fetched and parsed once.
async function namesOf(names: NamesSource, source: SanctionsSource, read: SourceListings, limits: SourceLimits): Promise<{ read: SourceNames; rows: NamesToLoad }> {
  const sameXml = names.kind === 'sdn-advanced-xml' && source.kind === 'sdn-advanced-xml' && names.file === source.file;
  const namesRead = sameXml && read.names ? read.names : await readNames(names, limits);
  return { read: namesRead, rows: namesToLoad(namesRead) };
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

// Names per name type and per entry type, e.g. {"primary individual": 6854, "aka individual": 8177}.
function namesByType(names: { nameType: string; sdnType: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { nameType, sdnType } of names) {
    const key = `${nameType} ${sdnType || 'unknown'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function rowsByFamily(rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.family] = (counts[row.family] ?? 0) + 1;
  return counts;
}

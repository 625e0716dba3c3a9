// The SDN names half of refresh-sanctions-list (pipeline/sanctions/load.ts runs it in the same
// transaction as the addresses): when the names source's content hash differs from the newest
// load (or that load read no dates of birth), sanctioned_names and sanctioned_births are replaced
// whole and the load recorded. A source with no names, or one
// that drops more than a tenth of the loaded names without allowShrink, is refused.
import { timestampValue } from '@duckdb/node-api';
import type { WriteTx } from '../store/group-commit.ts';
import { sqlFile } from '../store/sql-files.ts';
import type { ListedBirth, ListedName } from './listed-name.ts';
import type { SourceNames } from './read-names.ts';
import { refuseSharpDrop } from './sharp-drop.ts';

export interface NamesRefreshResult {
  changed: boolean;
  /** Rows of sanctioned_names: distinct (entry, name, name type). */
  nameCount: number;
  /** Distinct SDN entries with a name. */
  entryCount: number;
  /** Rows of sanctioned_births: dates of birth of the entries with a name. */
  birthCount: number;
  sha256: string;
}

/** The names to load, one per (entry, name, name type); throws on a source with none. */
export interface NamesToLoad {
  names: ListedName[];
  births: ListedBirth[];
}

export function namesToLoad(read: SourceNames): NamesToLoad {
  const byKey = new Map<string, ListedName>();
  for (const name of read.names) byKey.set([name.sdnUid, name.name, name.nameType].join('\u0000'), name);
  // An empty list would clear every name hit: it is a broken source, never a real publication.
  if (byKey.size === 0) throw new Error(`${read.description}: no SDN names found; keeping the previous names`);
  // Dates of birth of entries without a name would never be consulted.
  const named = new Set([...byKey.values()].map((n) => n.sdnUid));
  return { names: [...byKey.values()], births: read.births.filter((b) => named.has(b.sdnUid)) };
}

export async function replaceNamesIfChanged(tx: WriteTx, read: SourceNames, rows: NamesToLoad, allowShrink: boolean): Promise<NamesRefreshResult> {
  const { names, births } = rows;
  const result = { changed: false, nameCount: names.length, entryCount: new Set(names.map((n) => n.sdnUid)).size, birthCount: births.length, sha256: read.sha256 };
  const [last] = await tx.all(sqlFile('sanctions/latest_names_load'));
  if (last?.source_sha256 === read.sha256 && last.birth_count !== null) return result;
  if (!allowShrink) {
    const loaded = (await tx.all(sqlFile('sanctions/loaded_names'))) as { sdn_uid: string; name: string }[];
    refuseSharpDrop(read.description, loaded.map((r) => nameKey(r.sdn_uid, r.name)), new Set(names.map((n) => nameKey(n.sdnUid, n.name))), 'SDN names');
  }
  await tx.run('DELETE FROM sanctioned_names');
  await tx.append('sanctioned_names', names.map((n) => [n.sdnUid, n.name, n.nameType, n.sdnType]));
  await tx.run('DELETE FROM sanctioned_births');
  await tx.append('sanctioned_births', births.map((b) => [b.sdnUid, b.from, b.to]));
  await tx.append('sanctioned_name_loads', [[timestampValue(BigInt(Date.now()) * 1000n), read.description, read.sha256, result.nameCount, result.entryCount, result.birthCount]]);
  return { ...result, changed: true };
}

function nameKey(sdnUid: string, name: string): string {
  return `${sdnUid}\u0000${name}`;
}

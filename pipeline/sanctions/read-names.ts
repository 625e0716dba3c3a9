// Reads the SDN names of a names source: sdn.csv with alt.csv beside it, or sdn_advanced.xml.
// The content hash covers every file read (sdn.csv and alt.csv hashed as parts, as read-listings
// does), so a change in either is a change of the source.
import type { ListedBirth, ListedName } from './listed-name.ts';
import { parseSdnCsvNames } from './parse-sdn-csv-names.ts';
import { combined, readListings, readText, type Part } from './read-listings.ts';
import { describeSource, type SourceLimits } from './read-source.ts';

/** Files may be local paths or URLs. */
export type NamesSource = { kind: 'sdn-csv'; sdnFile: string; altFile?: string } | { kind: 'sdn-advanced-xml'; file: string };

export interface SourceNames {
  names: ListedName[];
  /** The entries' dates of birth as years (pipeline/sanctions/birth-years.ts). */
  births: ListedBirth[];
  sha256: string;
  /** Paths or credential-free URLs, as recorded in sanctioned_name_loads.source. */
  description: string;
  /** What a reader of the logs should know: alternates left out, values of no known kind. */
  warnings: string[];
}

export async function readNames(source: NamesSource, limits: SourceLimits): Promise<SourceNames> {
  // One parser reads addresses and names of sdn_advanced.xml: take the names of its pass.
  if (source.kind === 'sdn-advanced-xml') return (await readListings(source, limits)).names!;
  const parts: Part[] = [];
  const sdn = await readText(source.sdnFile, 'sdn.csv', parts, limits);
  const alt = source.altFile === undefined ? undefined : await readText(source.altFile, 'alt.csv', parts, limits);
  const parsed = parseSdnCsvNames(sdn, alt);
  const warnings = [...parsed.warnings];
  if (alt === undefined) warnings.push('no alt.csv beside sdn.csv: only primary names are loaded, alternate names are not screened');
  if (parsed.orphans.length > 0) {
    warnings.push(
      `alt.csv names ${parsed.orphans.length} entries sdn.csv does not list (${parsed.orphans.slice(0, 10).join(', ')}${parsed.orphans.length > 10 ? ', …' : ''}): ` +
        'their alternate names are left out; are the two files from the same publication?',
    );
  }
  const files = [source.sdnFile, source.altFile].filter((f) => f !== undefined);
  return { names: parsed.names, births: parsed.births, sha256: combined(parts), description: files.map(describeSource).join(' + '), warnings };
}

// Names of the SDN entries in OFAC's legacy CSV files: the primary name of each sdn.csv row
// (SDN_Name; SDN_Type says individual, vessel, aircraft, or -0- for an entity) and the alternate
// names in alt.csv (ent_num, alt_num, alt_type aka/fka/nka, alt_name, alt_remarks). Both files
// are read by the legacy CSV reader, so a damaged file is refused with its line number. The dates
// of birth in sdn.csv's Remarks ("DOB 15 Jun 1973; alt. DOB 1974") give each entry's birth years
// (pipeline/sanctions/birth-years.ts); an entry whose remarks sdn.csv cut gets none.
//
// An alt.csv row whose ent_num sdn.csv does not list is left out and reported: its entry is not
// on this list (delisted, or the files come from different publications), and loading it would
// screen against a name OFAC no longer lists.
import { readLegacyCsv } from './legacy-csv.ts';
import { reachesCut, sdnColumns } from './parse-sdn-csv.ts';
import { birthYearsOfRemarks } from './birth-years.ts';
import type { ListedBirth, ListedName, SdnNameType, SdnType } from './listed-name.ts';

const altColumns = 5; // ent_num, alt_num, alt_type, alt_name, alt_remarks
const sdnTypes: Record<string, SdnType> = { individual: 'individual', vessel: 'vessel', aircraft: 'aircraft', '': 'entity' };
const altTypes: Record<string, SdnNameType> = { aka: 'aka', fka: 'fka', nka: 'nka' };

export interface SdnCsvNames {
  names: ListedName[];
  births: ListedBirth[];
  /** ent_nums of alt.csv rows left out because sdn.csv does not list them. */
  orphans: string[];
  /** What a reader of the logs should know: values of a kind the format does not describe. */
  warnings: string[];
}

export function parseSdnCsvNames(sdnText: string, altText?: string): SdnCsvNames {
  const result: SdnCsvNames = { names: [], births: [], orphans: [], warnings: [] };
  const types = new Map<string, SdnType>();
  for (const entry of readLegacyCsv(sdnText, sdnColumns, 'sdn.csv')) {
    const [sdnUid, name, rawType] = entry as [string, string, string];
    const remarks = entry[sdnColumns - 1]!;
    const years = reachesCut(remarks) ? [] : birthYearsOfRemarks(remarks);
    if (years === null) result.warnings.push(`entry ${sdnUid}: a date of birth in a form that is not read; none of the entry's dates of birth is used`);
    for (const { from, to } of years ?? []) result.births.push({ sdnUid, from, to });
    let sdnType = sdnTypes[rawType.trim().toLowerCase()];
    if (sdnType === undefined) {
      result.warnings.push(`entry ${sdnUid}: SDN_Type "${rawType}" is none of individual, vessel, aircraft, -0-; its names are screened as an individual's`);
      sdnType = '';
    }
    types.set(sdnUid, sdnType);
    if (name.trim() === '') result.warnings.push(`entry ${sdnUid}: no SDN_Name`);
    else result.names.push({ sdnUid, name, nameType: 'primary', sdnType });
  }
  if (altText === undefined) return result;

  const orphans = new Set<string>();
  for (const [sdnUid, altNum, rawType, name] of readLegacyCsv(altText, altColumns, 'alt.csv') as [string, string, string, string][]) {
    const sdnType = types.get(sdnUid);
    if (sdnType === undefined) {
      orphans.add(sdnUid);
      continue;
    }
    let nameType = altTypes[rawType.trim().toLowerCase()];
    if (nameType === undefined) {
      result.warnings.push(`alternate ${altNum} of entry ${sdnUid}: alt_type "${rawType}" is none of aka, fka, nka; loaded as an aka`);
      nameType = 'aka';
    }
    if (name.trim() === '') result.warnings.push(`alternate ${altNum} of entry ${sdnUid}: no alt_name`);
    else result.names.push({ sdnUid, name, nameType, sdnType });
  }
  result.orphans = [...orphans];
  return result;
}

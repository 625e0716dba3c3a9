// Dates and entry ids for sources that lack them (legacy CSV, 0xB10C lists), from a file shaped
// like shared/data/ofac/address-first-seen.csv: per (currency, address) the SDN ent_num(s) and
// the date it was first seen in public copies of the list. That date approximates, from above,
// the designation date; `<=2022-09-03` means "already there in the oldest copy, of that day".
// Only a date known to be the first sighting is used: when a bound is as early as the earliest
// exact date, the first sighting is unknown and listed_at stays null.
import { normaliseAddress } from './address-family.ts';

export interface FirstSeen {
  sdnUids: string[];
  listedAt: string | null;
}

const dateColumns = ['first_seen_in_sdn_csv_scrape', 'first_seen_in_0xB10C_lists'];
const datePattern = /^(<=)?(\d{4}-\d{2}-\d{2})$/;

export function firstSeenKey(label: string, address: string): string {
  return `${label}\u0000${normaliseAddress(address)}`;
}

/** Keyed by firstSeenKey(label, address); rows for the same address in another case merge. */
export function parseFirstSeen(text: string): Map<string, FirstSeen> {
  const [header, ...lines] = text.replace(/\r?\n$/, '').split(/\r?\n/);
  const columns = header!.split(',');
  const at = (name: string) => {
    const index = columns.indexOf(name);
    if (index === -1) throw new Error(`first-seen file: no column ${name}`);
    return index;
  };
  const [label, address, uids] = [at('currency'), at('address'), at('ofac_ent_nums')];
  const dates = dateColumns.map(at);

  const merged = new Map<string, { uids: Set<string>; sightings: string[] }>();
  lines.forEach((line, i) => {
    const cells = line.split(',');
    if (cells.length !== columns.length) throw new Error(`first-seen file line ${i + 2}: ${cells.length} fields, expected ${columns.length}`);
    const key = firstSeenKey(cells[label]!, cells[address]!);
    const entry = merged.get(key) ?? { uids: new Set<string>(), sightings: [] };
    cells[uids]!.split(';').filter((uid) => uid !== '').forEach((uid) => entry.uids.add(uid));
    for (const column of dates) {
      const sighting = cells[column]!;
      if (sighting !== '' && !datePattern.test(sighting)) throw new Error(`first-seen file line ${i + 2}: bad date ${sighting}`);
      if (sighting !== '') entry.sightings.push(sighting);
    }
    merged.set(key, entry);
  });

  return new Map([...merged].map(([key, entry]) => [key, { sdnUids: [...entry.uids].sort(), listedAt: firstSighting(entry.sightings) }]));
}

function firstSighting(sightings: string[]): string | null {
  const parsed = sightings.map((s) => datePattern.exec(s)!).map((m) => ({ bound: m[1] !== undefined, date: m[2]! }));
  const exact = parsed.filter((s) => !s.bound).map((s) => s.date).sort()[0];
  if (exact === undefined) return null;
  return parsed.some((s) => s.bound && s.date <= exact) ? null : exact;
}

// SDN name screening at identity verification (spec 4.2 rule 4; 3.1: a potential match makes the
// session flagged): the name the KYC vendor read is compared with the names of the SDN
// individuals that refresh-sanctions-list loaded (sql/sanctions/screened_names.sql), normalised
// (identity/name-tokens.ts) and scored token by token with Jaro-Winkler (identity/name-match.ts).
// A date of birth is the second identifier: a match on an entry that lists dates of birth, none
// of them in the person's year of birth, is set aside (OFAC's own advice on a name-only match),
// and the best match left is the hit. The rules, the threshold and the figures: docs/screening.md.
//
// The name and the year of birth live in this call only: never stored, logged, or put in a result
// or an error.
// The store is only ever asked for the list, so no failure it reports can carry the name.
//
// Like pipeline/sanctions/lookup.ts: the names sit in an in-memory index, rebuilt when a newer
// load exists (pipeline/store/reloading-index.ts),
// and `unavailable` is never a kind of `clear`: no names were ever loaded, they hold no
// individual, the store could not be read, or the name has too few words to compare. The caller
// fails closed on it.
import type { Store } from '../pipeline/store/store.ts';
import type { Row } from '../pipeline/store/rows.ts';
import { createReloadingIndex, type ReloadingIndexOptions } from '../pipeline/store/reloading-index.ts';
import type { SdnNameType } from '../pipeline/sanctions/listed-name.ts';
import { bornWithin, type BirthYears } from '../pipeline/sanctions/birth-years.ts';
import { createNameIndex, type NameIndex } from './name-index.ts';
import { minWholePairs } from './name-match.ts';
import { nameTokens } from './name-tokens.ts';

export type ScreeningResult =
  | { status: 'clear' }
  /**
   * `birthCheck`, for the person who reviews the hit: the year given is in the entry's listed dates,
   * no year was given, or the entry lists no date that could be read.
   */
  | { status: 'hit'; sdnUid: string; nameType: 'primary' | 'aka' | 'fka' | 'nka'; score: number; birthCheck: BirthCheck }
  | { status: 'unavailable'; reason: string };

export type BirthCheck = 'in_listed_years' | 'not_given' | 'entry_undated';

export interface NameScreening {
  /** `birthYear`: the year of birth on the document, or null when the vendor gave none. */
  screen(fullName: string, birthYear: number | null): Promise<ScreeningResult>;
}

interface ScreenedNames {
  index: NameIndex;
  /** The dates of birth of each entry that lists any. */
  births: Map<string, BirthYears[]>;
}

/** The similarity from which a name is a potential match (docs/screening.md says how it was chosen). */
export const screeningThreshold = 0.9;

export function createNameScreening(store: Store, options: ReloadingIndexOptions & { threshold?: number } = {}): NameScreening {
  const threshold = options.threshold ?? screeningThreshold;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`screening threshold must be above 0 and at most 1, got ${threshold}`);
  const names = createReloadingIndex(store, { latest: 'sanctions/latest_names_load', rows: 'sanctions/screened_names', build: (_latest, rows) => buildIndex(rows) }, options);

  return {
    async screen(fullName, birthYear) {
      let loaded: ScreenedNames | null;
      try {
        loaded = await names.current();
      } catch (err) {
        return { status: 'unavailable', reason: `the SDN names could not be read: ${(err as Error).message}` };
      }
      if (!loaded) return { status: 'unavailable', reason: 'no SDN names have been loaded: run refresh-sanctions-list with a names source (SANCTIONS_NAMES_SOURCE)' };
      const { index, births } = loaded;
      if (index.size === 0) return { status: 'unavailable', reason: 'the loaded SDN names hold no individual: check SANCTIONS_NAMES_SOURCE' };
      if (typeof fullName !== 'string') return { status: 'unavailable', reason: 'no name to screen' };
      const tokens = nameTokens(fullName);
      if (tokens.tokens.filter((token) => token.length > 1).length < minWholePairs) {
        return { status: 'unavailable', reason: `the name has fewer than ${minWholePairs} words that can be compared (one-word names and initials are not screened)` };
      }
      const setAside = (sdnUid: string) => {
        const listed = births.get(sdnUid);
        return birthYear !== null && listed !== undefined && !bornWithin(birthYear, listed);
      };
      const match = index.matches(tokens, threshold).find((m) => !setAside(m.name.sdnUid));
      if (!match) return { status: 'clear' };
      const birthCheck: BirthCheck = birthYear === null ? 'not_given' : births.has(match.name.sdnUid) ? 'in_listed_years' : 'entry_undated';
      return { status: 'hit', sdnUid: match.name.sdnUid, nameType: match.name.nameType, score: match.score, birthCheck };
    },
  };
}

function buildIndex(rows: Row[]): ScreenedNames {
  const births = new Map<string, BirthYears[]>();
  for (const row of rows) {
    if (Array.isArray(row.births)) births.set(String(row.sdn_uid), (row.births as [number, number][]).map(([from, to]) => ({ from, to })));
  }
  const index = createNameIndex(rows.map((row) => ({ sdnUid: String(row.sdn_uid), nameType: String(row.name_type) as SdnNameType, tokens: nameTokens(String(row.name)) })));
  return { index, births };
}

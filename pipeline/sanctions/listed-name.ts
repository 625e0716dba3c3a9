// One name of an SDN entry as a sanctions list publishes it: the parsers produce these, the loader
// writes them, name screening (identity/screening.ts) compares verified names with them.
import type { BirthYears } from './birth-years.ts';

export type SdnNameType = 'primary' | 'aka' | 'fka' | 'nka';

/** What the entry is; '' when the source does not say (screened as if it were an individual). */
export type SdnType = 'individual' | 'entity' | 'vessel' | 'aircraft' | '';

export interface ListedName {
  /** SDN entry id (ent_num, = profile id in sdn_advanced.xml). */
  sdnUid: string;
  /** As published: OFAC writes individuals "SURNAME, Given", e.g. "KHOROSHEV, Dmitry Yuryevich". */
  name: string;
  nameType: SdnNameType;
  sdnType: SdnType;
}

/**
 * A date of birth an SDN entry lists, as the years it allows: "DOB 15 Jun 1973" is 1973-1973,
 * "DOB 1970 to 1975" 1970-1975, "DOB circa 1973" 1971-1975 (pipeline/sanctions/birth-years.ts).
 */
export interface ListedBirth extends BirthYears {
  sdnUid: string;
}

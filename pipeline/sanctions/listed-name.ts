// One name of an SDN entry as a sanctions list publishes it: the parsers produce these, the loader
// writes them, name screening (identity/screening.ts) compares verified names with them.

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

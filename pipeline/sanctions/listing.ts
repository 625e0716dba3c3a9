// One digital-currency address as a sanctions list publishes it, before any normalisation: the
// parsers produce these, the loader assigns families and writes them.

export interface ListedAddress {
  /** SDN entry id (ent_num, = profile id in sdn_advanced.xml); '' when the source does not say. */
  sdnUid: string;
  /** OFAC's currency label, e.g. ETH, XBT, USDT. */
  label: string;
  /** As published (EVM addresses in mixed case, too). */
  address: string;
  /** Designation date (YYYY-MM-DD) when the source gives one. */
  listedAt: string | null;
}

/** OFAC names every address feature `Digital Currency Address - <LABEL>`. */
export const digitalCurrencyAddressPrefix = 'Digital Currency Address - ';

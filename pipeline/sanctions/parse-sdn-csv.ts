// Digital-currency addresses from OFAC's legacy sdn.csv (+ sdn_comments.csv). Addresses sit in the
// Remarks column as `; `-separated items, `Digital Currency Address - ETH 0x…` or `alt. Digital
// Currency Address - XBT 1…`; the last item of the remarks ends with a full stop instead.
// sdn.csv cuts Remarks at 1,000 characters and sdn_comments.csv carries the rest, sometimes from
// the middle of an address, so the two are joined with no separator. Without the continuation the
// item the cut fell in is incomplete: it is reported, never loaded as an address.
import { readLegacyCsv } from './legacy-csv.ts';
import { digitalCurrencyAddressPrefix, type ListedAddress } from './listing.ts';

/** sdn.csv's Remarks column holds at most this many characters. */
export const remarksCut = 1000;

export const sdnColumns = 12; // ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
const addressItem = /^(?:alt\. )?Digital Currency Address - (\S+) (\S+?)\.?$/;
const itemPrefixes = [digitalCurrencyAddressPrefix, `alt. ${digitalCurrencyAddressPrefix}`];

export interface CutRemarks {
  sdnUid: string;
  /** The unfinished last item when it is (the start of) an address, e.g. `alt. Digital Currency Address - XBT 1Gq`. */
  fragment: string | null;
}

export interface SdnCsvParse {
  addresses: ListedAddress[];
  /** Rows of sdn.csv. */
  entryCount: number;
  /** Entries whose remarks reach the cut with no continuation row: they may list more addresses. */
  cut: CutRemarks[];
  /** Items naming a digital currency address in a shape the pattern does not take. */
  malformed: { sdnUid: string; item: string }[];
}

export function parseSdnCsv(sdnText: string, commentsText?: string): SdnCsvParse {
  const entries = readLegacyCsv(sdnText, sdnColumns, 'sdn.csv');
  const continuations = commentsText === undefined ? new Map<string, string>() : readContinuations(commentsText);
  checkContinuationsFit(entries, continuations);

  const result: SdnCsvParse = { addresses: [], entryCount: entries.length, cut: [], malformed: [] };
  for (const entry of entries) {
    const sdnUid = entry[0]!;
    const remarks = entry[sdnColumns - 1]!;
    const continuation = continuations.get(sdnUid);
    const items = (continuation === undefined ? remarks : remarks + continuation).split(';');
    if (continuation === undefined && reachesCut(remarks)) {
      const unfinished = items.pop()!.trim();
      result.cut.push({ sdnUid, fragment: startsAddressItem(unfinished) ? unfinished : null });
    }
    for (const raw of items) {
      const item = raw.trim();
      if (!item.includes(digitalCurrencyAddressPrefix)) continue;
      const match = addressItem.exec(item);
      if (match) result.addresses.push({ sdnUid, label: match[1]!, address: match[2]!, listedAt: null });
      else result.malformed.push({ sdnUid, item });
    }
  }
  return result;
}

function readContinuations(text: string): Map<string, string> {
  const byUid = new Map<string, string>();
  for (const [sdnUid, rest] of readLegacyCsv(text, 2, 'sdn_comments.csv')) {
    byUid.set(sdnUid!, (byUid.get(sdnUid!) ?? '') + rest!);
  }
  return byUid;
}

// A continuation only follows remarks cut at the limit. Anything else means the two files come
// from different publications, and joining them would splice unrelated text into addresses.
function checkContinuationsFit(entries: string[][], continuations: Map<string, string>): void {
  const cut = new Map(entries.map((e) => [e[0]!, reachesCut(e[sdnColumns - 1]!)]));
  const misfits = [...continuations.keys()].filter((uid) => cut.get(uid) !== true);
  if (misfits.length > 0) {
    throw new Error(
      `sdn_comments.csv continues ${misfits.length} entries whose sdn.csv remarks are not cut at ${remarksCut} characters ` +
        `(${misfits.slice(0, 10).join(', ')}${misfits.length > 10 ? ', …' : ''}): the two files are not from the same publication`,
    );
  }
}

// The files seen so far are ASCII, where characters and bytes agree; whether OFAC counts
// characters or UTF-8 bytes once a name has accents is unknown, so either reaching it counts.
/** Whether sdn.csv cut these remarks (the rest, if any, is in sdn_comments.csv). */
export function reachesCut(remarks: string): boolean {
  return remarks.length >= remarksCut || Buffer.byteLength(remarks, 'utf8') >= remarksCut;
}

function startsAddressItem(item: string): boolean {
  return item !== '' && itemPrefixes.some((prefix) => prefix.startsWith(item) || item.startsWith(prefix));
}

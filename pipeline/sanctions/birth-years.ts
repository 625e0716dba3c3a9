// The dates of birth an SDN entry lists, as years, for name screening's second identifier
// (identity/screening.ts: a name match is set aside when the entry lists dates of birth and the
// person's year of birth is in none of them). Only years are kept: a day or a month misread in a
// document, or written differently in a listing, must never clear a listed person.
//
// An entry either has all of its dates read or none: one date the patterns do not take (or remarks
// that sdn.csv cut, whose rest may list more) leaves the entry with no dates, so no match on it
// is ever set aside.

/** "circa" widens a year this much either way: OFAC does not say how far it reaches. */
export const circaYears = 2;

export interface BirthYears {
  from: number;
  to: number;
}

const month = String.raw`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?`;
const date = String.raw`(?:\d{1,2}\s+)?(?:${month}\s+)?(\d{4})`;
// From "DOB" to the end of its item, nothing else: "DOB 15 Jun 1973", "alt. DOB 1970 to 1975",
// "DOB circa 1973-1975", "Alt. DOB: 10 October 1969". A date followed by more words ("DOB 1960 or
// 1961", "DOB approximately 1960") is not read, so it can never narrow what the entry lists.
const dobItem = new RegExp(String.raw`^DOB:?\s+(circa\s+)?${date}(?:\s*(?:to|-)\s*${date})?[.)"\s]*$`, 'i');
const dobMention = /\bDOB\b/gi;

/** The years of each "DOB …" of sdn.csv remarks; null when one of them cannot be read. */
export function birthYearsOfRemarks(remarks: string): BirthYears[] | null {
  const read: BirthYears[] = [];
  for (const mention of remarks.matchAll(dobMention)) {
    // Items are separated by semicolons; the last one ends the remarks.
    const end = remarks.indexOf(';', mention.index);
    const item = dobItem.exec(remarks.slice(mention.index, end === -1 ? undefined : end).trim());
    const years = item && yearsOf(Number(item[2]), Number(item[3] ?? item[2]), item[1] !== undefined);
    if (!years) return null;
    read.push(years);
  }
  return read;
}

/** A period of years, widened when approximate; null when it runs backwards or is no plausible year. */
export function yearsOf(from: number, to: number, approximate: boolean): BirthYears | null {
  if (!(from >= 1800 && to >= from && to <= 2100)) return null;
  const widen = approximate ? circaYears : 0;
  return { from: from - widen, to: to + widen };
}

/** Whether a person born in `year` may be the one these listed dates describe. */
export function bornWithin(year: number, listed: readonly BirthYears[]): boolean {
  return listed.some((y) => year >= y.from && year <= y.to);
}

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

const date = String.raw`(?:\d{1,2}\s+)?(?:[A-Za-z]+\.?\s+)?(\d{4})`;
// "DOB 15 Jun 1973", "alt. DOB 1970 to 1975", "DOB circa 1973-1975", "Alt. DOB: 10 October 1969".
const dobItem = new RegExp(String.raw`\bDOB:?\s+(circa\s+)?${date}(?:\s*(?:to|-)\s*${date})?(?=$|[\s;.,)])`, 'gi');
const dobMention = /\bDOB\b/gi;

/** The years of each "DOB …" of sdn.csv remarks; null when one of them cannot be read. */
export function birthYearsOfRemarks(remarks: string): BirthYears[] | null {
  const mentions = remarks.match(dobMention)?.length ?? 0;
  const read = [...remarks.matchAll(dobItem)].map((m) => yearsOf(Number(m[2]), Number(m[3] ?? m[2]), m[1] !== undefined));
  return read.length === mentions && read.every((y) => y !== null) ? (read as BirthYears[]) : null;
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

// A person's name as the tokens name screening compares. The same steps apply to the name a KYC
// vendor read from a document and to the names OFAC publishes, so spelling conventions cancel out:
//
//   1. OFAC writes individuals "SURNAME, Given" (sdn.csv, alt.csv): the text before the first comma
//      moves to the end, giving "Given SURNAME" as names are typed, and is remembered as the
//      surname. Pairing tokens ignores their order (people put the surname first or last); the
//      surname and the neighbours of a token matter (identity/name-match.ts). A name without a
//      comma, as a typed name normally is, has no known surname.
//   2. Unicode NFKD with combining marks removed (é → e, ö → o, Arabic vowel marks dropped), the
//      few Latin letters NFKD does not decompose spelled out (ß → ss, ø → o, ł → l, ...), and
//      lower case.
//   3. Apostrophes and okina-like marks join their neighbours (O'Brien → obrien, Rifa'i → rifai);
//      any other character that is not a letter or digit separates tokens (AL-ZUMAR → al zumar).
//   4. Honorifics and generational suffixes are dropped (MR, DR, SHEIKH, HAJJI, JR, III, ...):
//      they are titles, not names, and are written or left out at will. So are name particles
//      that transliterations attach, hyphenate or leave out inconsistently: the Arabic article
//      (AL-ZUMAR, ZUMAR, EL-ZOMOR are one name in OFAC's own aka lists), bin / ibn / bint, and the
//      Romance and Germanic de, del, della, der, di, du, da, dos, das, von, van (van is also the
//      Vietnamese middle name Van, dropped alike on both sides). Particles that are also common
//      surnames or given names elsewhere stay: le and la (Vietnamese Le), do (Vietnamese Do), ben
//      (a given name), abu and abd (part of the name they start).
//
// Not covered: transliteration between scripts (a name typed in Cyrillic or Arabic script only
// matches a name published in that script).

const joiners = /['\u2018\u2019\u02BB\u02BC\u02BE\u02BF`\u00B4]/gu;
const separators = /[^\p{L}\p{N}]+/u;
const combiningMarks = /\p{M}/gu;

// Latin letters without a canonical decomposition.
const spelledOut: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ł: 'l', þ: 'th', ŧ: 't' };
const spelledOutPattern = new RegExp(`[${Object.keys(spelledOut).join('')}]`, 'gu');

const honorifics = ['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'sheikh', 'shaykh', 'sheik', 'shaikh', 'haji', 'hajji', 'hadji', 'mullah', 'mulla', 'maulana', 'mawlana', 'jr', 'sr', 'ii', 'iii', 'iv'];
const particles = ['al', 'el', 'bin', 'ibn', 'bint', 'de', 'del', 'della', 'der', 'di', 'du', 'da', 'dos', 'das', 'von', 'van'];
const dropped = new Set([...honorifics, ...particles]);

export interface NameTokens {
  /** In "Given SURNAME" order; empty when nothing name-like is left. */
  tokens: string[];
  /** Where the surname starts: tokens from here on came before the comma; tokens.length when the name has none. */
  surnameAt: number;
}

export function nameTokens(name: string): NameTokens {
  const comma = name.indexOf(',');
  if (comma === -1) {
    const tokens = tokenize(name);
    return { tokens, surnameAt: tokens.length };
  }
  const given = tokenize(name.slice(comma + 1));
  return { tokens: [...given, ...tokenize(name.slice(0, comma))], surnameAt: given.length };
}

function tokenize(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(combiningMarks, '')
    .toLowerCase()
    .replace(spelledOutPattern, (letter) => spelledOut[letter]!)
    .replace(joiners, '');
  return folded.split(separators).filter((token) => token !== '' && !dropped.has(token));
}

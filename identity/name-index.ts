// The SDN names in memory, searched for the matches of one name without scoring all of them.
//
// A name reaches the threshold only if one of its token pairs does (a mean is never above its
// largest term, and the denominator only grows), so a search first compares each whole token of
// the screened name with the distinct whole tokens of the listed names (about 13,000 for the
// individuals of the 2024 list), and then scores only the names holding a token that reached the
// threshold. All but about one token in a thousand is ruled out without computing Jaro-Winkler:
// Jaro counts matching characters, which cannot be more than the characters two tokens share, and
// that count bounds the similarity (see upperBound).
//
// The one case the search leaves out: a name whose only token at the threshold is two
// neighbouring tokens joined (identity/name-match.ts), which needs every other pair below it too.
import jaroWinkler from 'talisman/metrics/jaro-winkler';
import { minWholePairs, nameScore } from './name-match.ts';
import type { NameTokens } from './name-tokens.ts';
import type { SdnNameType } from '../pipeline/sanctions/listed-name.ts';

export interface IndexedName {
  sdnUid: string;
  nameType: SdnNameType;
  tokens: NameTokens;
}

export interface NameMatch {
  name: IndexedName;
  score: number;
}

export interface NameIndex {
  /** Names that can be compared (two whole tokens or more). */
  readonly size: number;
  /** The names scoring at or above the threshold, best first (among equals, the first given). */
  matches(name: NameTokens, threshold: number): NameMatch[];
}

export function createNameIndex(names: IndexedName[]): NameIndex {
  const comparable = names.filter((name) => wholeTokens(name.tokens).length >= minWholePairs);
  const postings = new Map<string, number[]>();
  comparable.forEach((name, id) => {
    for (const token of new Set(wholeTokens(name.tokens))) {
      const ids = postings.get(token);
      if (ids) ids.push(id);
      else postings.set(token, [id]);
    }
  });
  // Characters are numbered, so counting shared ones is array arithmetic.
  const alphabet = new Map<string, number>();
  const vocabulary = [...postings.keys()].map((text) => ({ text, letters: letterCounts(text, alphabet, true) }));

  return {
    size: comparable.length,
    matches(name, threshold) {
      const candidates = new Set<number>();
      const counts = new Int32Array(alphabet.size);
      for (const token of new Set(wholeTokens(name))) {
        const letters = letterCounts(token, alphabet, false);
        for (let k = 0; k < letters.length; k += 2) counts[letters[k]!] = letters[k + 1]!;
        for (const other of vocabulary) {
          if (upperBound(token, other.text, shared(counts, other.letters)) < threshold) continue;
          if (jaroWinkler(token, other.text) >= threshold) for (const id of postings.get(other.text)!) candidates.add(id);
        }
        counts.fill(0);
      }
      const found: { id: number; score: number }[] = [];
      for (const id of candidates) {
        const score = nameScore(name, comparable[id]!.tokens);
        if (score >= threshold) found.push({ id, score });
      }
      return found.sort((x, y) => y.score - x.score || x.id - y.id).map(({ id, score }) => ({ name: comparable[id]!, score }));
    },
  };
}

function wholeTokens(name: NameTokens): string[] {
  return name.tokens.filter((token) => token.length > 1);
}

/**
 * The token's characters as (number, count) pairs, numbered in `alphabet`; a character the
 * alphabet lacks is numbered when `grow`, else left out (no listed token has it to share).
 */
function letterCounts(token: string, alphabet: Map<string, number>, grow: boolean): Int32Array {
  const counts = new Map<number, number>();
  for (let i = 0; i < token.length; i++) {
    const c = token[i]!;
    let id = alphabet.get(c);
    if (id === undefined && grow) alphabet.set(c, (id = alphabet.size));
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return Int32Array.from([...counts].flat());
}

/** How many characters two tokens share, counting repeats: no more of them can match in Jaro. */
function shared(counts: Int32Array, letters: Int32Array): number {
  let n = 0;
  for (let k = 0; k < letters.length; k += 2) n += Math.min(letters[k + 1]!, counts[letters[k]!]!);
  return n;
}

// The highest Jaro-Winkler similarity two tokens sharing `matches` characters can have: Jaro with
// every shared character matched and none transposed, plus the bonus of their common prefix
// (Winkler's: a tenth of the remaining distance per character, up to four).
function upperBound(a: string, b: string, matches: number): number {
  if (matches === 0) return 0;
  const jaro = (matches / a.length + matches / b.length + 1) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

// How alike two names are, from their tokens (identity/name-tokens.ts), 0 to 1. The rules, with
// the figures that chose them, are in docs/screening.md:
//
// - Each token of the name with fewer tokens is paired with a distinct token of the other,
//   greedily by Jaro-Winkler similarity (best pair first). Token order does not matter: people
//   write the surname first or last, and OFAC writes it first.
// - An initial (a one-letter token) agrees with a token it starts and then neither raises nor
//   lowers the score; one that starts no free token of the other name is a mismatch (a pair
//   scoring 0 with one of the tokens left on the other side).
// - The score is the mean similarity of the pairs of whole tokens, with each whole token of the
//   longer name left unpaired counting a tenth of a pair in the denominator: a passport without
//   the patronymic ("Dmitry Khoroshev" for "KHOROSHEV, Dmitry Yuryevich") still scores 0.95, a
//   short name inside a long listed one a little less for each token it lacks.
// - At least two pairs of whole tokens are needed: a one-word name, or a surname with initials,
//   says too little to screen. When only two pair, one must be in the surname of a name that marks
//   it ("SURNAME, Given"): two given names ("Olga Ivanov" against "KULYGINA, Olga Ivanovna") are
//   not that person's name. Three or more pairs count without it (an Arabic nisba such as
//   AL-TIKRITI is often left out of a passport).
// - Names split differently ("Chol Nam" / "Cholnam", "Abd Al Rahman" / "Abdalrahman") compare
//   as well when two neighbouring tokens of the longer name, joined, pair with one token.
import jaroWinkler from 'talisman/metrics/jaro-winkler';
import type { NameTokens } from './name-tokens.ts';

/** Weight of an unpaired whole token of the longer name in the mean's denominator. */
export const unpairedTokenWeight = 0.1;
/** Pairs of whole tokens a comparison needs. */
export const minWholePairs = 2;

export function nameScore(a: NameTokens, b: NameTokens): number {
  const [shorter, longer] = a.tokens.length <= b.tokens.length ? [a, b] : [b, a];
  let best = pairedScore(shorter, longer).score;
  if (longer.tokens.length > shorter.tokens.length) {
    for (const { name, at } of adjacentJoins(longer)) {
      const joined = pairedScore(shorter, name);
      // A join that pairs nothing would only shorten the unpaired count.
      if (!joined.free[at]) best = Math.max(best, joined.score);
    }
  }
  return best;
}

// The name with one pair of neighbouring whole tokens of the same part (given names, or surname)
// joined, for each such pair; `at` is where the joined token sits.
function adjacentJoins(name: NameTokens): { name: NameTokens; at: number }[] {
  const { tokens, surnameAt } = name;
  const joins: { name: NameTokens; at: number }[] = [];
  for (let at = 0; at + 1 < tokens.length; at++) {
    if (tokens[at]!.length === 1 || tokens[at + 1]!.length === 1 || at + 1 === surnameAt) continue;
    const joined = [...tokens.slice(0, at), tokens[at]! + tokens[at + 1]!, ...tokens.slice(at + 2)];
    joins.push({ at, name: { tokens: joined, surnameAt: at + 1 < surnameAt ? surnameAt - 1 : surnameAt } });
  }
  return joins;
}

// The score of pairing `shorter`'s tokens with `longer`'s, and which of `longer`'s stayed free.
function pairedScore(shorter: NameTokens, longer: NameTokens): { score: number; free: boolean[] } {
  const [short, long] = [shorter.tokens, longer.tokens];
  const free = long.map(() => true);

  // Whole tokens first, so an initial never takes the token a whole one matches.
  const pairs: { i: number; j: number; value: number }[] = [];
  short.forEach((s, i) => {
    if (s.length > 1) long.forEach((l, j) => l.length > 1 && pairs.push({ i, j, value: jaroWinkler(s, l) }));
  });
  pairs.sort((x, y) => y.value - x.value || x.i - y.i || x.j - y.j);
  const paired = short.map(() => false);
  let total = 0;
  let whole = 0;
  for (const { i, j, value } of pairs) {
    if (paired[i] || !free[j]) continue;
    paired[i] = true;
    free[j] = false;
    total += value;
    whole++;
  }
  if (whole < minWholePairs) return { score: 0, free };
  if (whole === minWholePairs && !(pairsSurname(shorter, paired) && pairsSurname(longer, free.map((f) => !f)))) return { score: 0, free };

  // An initial, or a whole token left with only initials to pair with, agrees with a free token
  // it shares a first letter with; otherwise it is a mismatch.
  let mismatches = 0;
  short.forEach((s, i) => {
    if (paired[i]) return;
    const j = long.findIndex((l, k) => free[k] && l[0] === s[0] && (s.length === 1 || l.length === 1));
    if (j === -1) mismatches++;
    else free[j] = false;
  });
  // Each mismatch stands against one token left on the longer side; whole tokens left beyond those
  // are the ones the shorter name lacks.
  const unpaired = Math.max(0, long.filter((l, j) => free[j] && l.length > 1).length - mismatches);
  return { score: total / (whole + mismatches + unpairedTokenWeight * unpaired), free };
}

// Whether a pair holds a whole token of the name's surname; true when the name marks none.
function pairsSurname(name: NameTokens, paired: boolean[]): boolean {
  if (name.surnameAt >= name.tokens.length) return true;
  return name.tokens.some((token, j) => j >= name.surnameAt && token.length > 1 && paired[j]);
}

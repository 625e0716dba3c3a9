// Name screening's pure parts: normalising a name into tokens (identity/name-tokens.ts) and
// scoring two names (identity/name-match.ts), on real SDN names.
import { describe, expect, it } from 'vitest';
import { nameTokens } from '../identity/name-tokens.ts';
import { nameScore } from '../identity/name-match.ts';
import { screeningThreshold } from '../identity/screening.ts';

const score = (a: string, b: string) => nameScore(nameTokens(a), nameTokens(b));

describe('nameTokens', () => {
  it('turns OFAC\'s "SURNAME, Given" into "Given SURNAME" and remembers where the surname starts', () => {
    expect(nameTokens('KHOROSHEV, Dmitry Yuryevich')).toEqual({ tokens: ['dmitry', 'yuryevich', 'khoroshev'], surnameAt: 2 });
    expect(nameTokens('LOGAN MOREY, Elvis Angus')).toEqual({ tokens: ['elvis', 'angus', 'logan', 'morey'], surnameAt: 2 });
    // A typed name has no comma: no known surname.
    expect(nameTokens('Dmitry Yuryevich Khoroshev')).toEqual({ tokens: ['dmitry', 'yuryevich', 'khoroshev'], surnameAt: 3 });
    // Only the first comma moves: a generational suffix after a second one is dropped anyway.
    expect(nameTokens('DELOS REYES, Feliciano Semborio, Jr.')).toEqual({ tokens: ['feliciano', 'semborio', 'delos', 'reyes'], surnameAt: 2 });
  });

  it('folds case and accents (NFKD without marks, and the letters NFKD keeps), drops punctuation', () => {
    expect(nameTokens('José MÜLLER-Łukasiewicz').tokens).toEqual(['jose', 'muller', 'lukasiewicz']);
    expect(nameTokens('Søren Straße Æsir Þór').tokens).toEqual(['soren', 'strasse', 'aesir', 'thor']);
    expect(nameTokens("Rifa'i O’Brien").tokens).toEqual(['rifai', 'obrien']);
    expect(nameTokens('Ｄｍｉｔｒｙ   KHOROSHEV.').tokens).toEqual(['dmitry', 'khoroshev']);
  });

  it('drops honorifics, generational suffixes and name particles, keeps what is also a name', () => {
    expect(nameTokens('AL ZAWAHIRI, Dr. Ayman').tokens).toEqual(['ayman', 'zawahiri']);
    expect(nameTokens('FADLALLAH, Shaykh Muhammad Husayn').tokens).toEqual(['muhammad', 'husayn', 'fadlallah']);
    expect(nameTokens('BIN LADIN, Usama bin Muhammad bin Awad').tokens).toEqual(['usama', 'muhammad', 'awad', 'ladin']);
    expect(nameTokens('Mr. Jose de Jesus van der Berg III').tokens).toEqual(['jose', 'jesus', 'berg']);
    expect(nameTokens('Le Do Ben Abu Abd').tokens).toEqual(['le', 'do', 'ben', 'abu', 'abd']);
  });

  it('keeps letters of other scripts (they only match names in the same script)', () => {
    expect(nameTokens('Дмитрий Хорошев').tokens).toEqual(['дмитрии', 'хорошев']);
  });
});

describe('nameScore', () => {
  const khoroshev = 'KHOROSHEV, Dmitry Yuryevich';

  it('is 1 for the same name in any token order, case or punctuation', () => {
    for (const typed of ['Dmitry Yuryevich Khoroshev', 'KHOROSHEV DMITRY YURYEVICH', 'yuryevich, dmitry khoroshev', 'Dmitry-Yuryevich Khoroshev.']) {
      expect(score(typed, khoroshev)).toBe(1);
    }
  });

  it("scores OFAC's own transliteration variants of one person above the threshold", () => {
    expect(score('KHOROSHEV, Dmitriy Yurevich', khoroshev)).toBeGreaterThanOrEqual(screeningThreshold);
    expect(score('KHOROSHEV, Dmitrii Yuryevich', khoroshev)).toBeGreaterThanOrEqual(screeningThreshold);
    expect(score('HAWATMEH, Nayif', 'HAWATMA, Nayif')).toBeGreaterThanOrEqual(screeningThreshold);
    expect(score('EL-ZOMOR, Aboud Abdul Latif Hasan', 'AL-ZOMOR, Abboud Abdul Latif Hassan')).toBeGreaterThanOrEqual(screeningThreshold);
  });

  it('lowers the score a little for each token of the longer name left unpaired', () => {
    // A passport without the patronymic: 2 / (2 + 0.1).
    expect(score('Dmitry Khoroshev', khoroshev)).toBeCloseTo(2 / 2.1, 10);
    expect(score('Elvis Logan', 'LOGAN MOREY, Elvis Angus')).toBeCloseTo(2 / 2.2, 10);
    expect(score('Elvis Logan', 'LOGAN MOREY, Elvis Angus')).toBeLessThan(score('Elvis Angus Logan', 'LOGAN MOREY, Elvis Angus'));
  });

  it('needs two whole tokens paired: one word, or a surname with initials, is not compared', () => {
    expect(score('Khoroshev', khoroshev)).toBe(0);
    expect(score('D. Khoroshev', khoroshev)).toBe(0);
    expect(score('D. Y. Khoroshev', khoroshev)).toBe(0);
  });

  it('lets an agreeing initial count for nothing, and a disagreeing one as a mismatch', () => {
    expect(score('Dmitry Y. Khoroshev', khoroshev)).toBe(1);
    expect(score('Dmitry X. Khoroshev', khoroshev)).toBeCloseTo(2 / 3, 10);
  });

  it('refuses two paired given names when the listed surname is not among the pairs', () => {
    // olga = olga, ivanov ~ ivanovna (the patronymic): the listed surname KULYGINA pairs nothing.
    expect(score('Olga Ivanov', 'KULYGINA, Olga Ivanovna')).toBeLessThan(0.7);
    // Three paired tokens count without the surname (a nisba left off a passport).
    expect(score('Barzan Ibrahim Hasan', 'AL-TIKRITI, Barzan Ibrahim Hasan')).toBeCloseTo(3 / 3.1, 10);
  });

  it('compares names split differently by joining two neighbouring tokens', () => {
    expect(score('Kim Cholnam', 'KIM, Chol Nam')).toBe(1);
    expect(score('Chol-Nam Kim', 'KIM, Cholnam')).toBe(1);
    // A join only counts when its token pairs: joining the two unpaired given names is no help.
    expect(score('Mohammad Ahdal', 'AL-AHDAL, Mohammad Hamdi Mohammad Sadiq')).toBeCloseTo(2 / 2.3, 10);
  });

  it('is symmetric', () => {
    for (const [a, b] of [
      ['Dmitry Khoroshev', khoroshev],
      ['Olga Ivanov', 'KULYGINA, Olga Ivanovna'],
      ['Kim Cholnam', 'KIM, Chol Nam'],
      ['Dmitry X. Khoroshev', khoroshev],
    ] as const) {
      expect(score(a, b)).toBe(score(b, a));
    }
  });
});

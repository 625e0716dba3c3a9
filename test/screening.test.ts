// createNameScreening over real DuckDB stores loaded by refresh-sanctions-list from sdn-tiny (the
// real SDN subset: KHOROSHEV, Dmitry Yuryevich with OFAC's own transliterated akas, MORENO,
// Daniel, entities, vessels, aircraft), and what it answers when there is nothing to screen with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { silentLogger } from '../pipeline/log.ts';
import { refreshSanctionsList, type NamesSource, type SanctionsSource } from '../pipeline/sanctions/load.ts';
import { createNameScreening, screeningThreshold, type NameScreening, type ScreeningResult } from '../identity/screening.ts';
import { ofacPath, readOfac } from './helpers/ofac-data.ts';
import { tempDataDir } from './helpers/temp.ts';
import { blockStore } from './helpers/block-store.ts';

const tinySdn = ofacPath('sdn-tiny/sdn.csv');
const tiny: SanctionsSource = { kind: 'sdn-csv', sdnFile: tinySdn, commentsFile: ofacPath('sdn-tiny/sdn_comments.csv') };
const primariesOnly: NamesSource = { kind: 'sdn-csv', sdnFile: tinySdn };
const withAlternates: NamesSource = { kind: 'sdn-csv', sdnFile: tinySdn, altFile: ofacPath('sdn-tiny/alt.csv') };
const recheckMs = 5_000;
const files = tempDataDir('screening-files');

let clock = Date.now();
const now = () => clock;
const later = () => (clock += recheckMs + 1);

const load = (store: Store, names: NamesSource, source: SanctionsSource = tiny) =>
  refreshSanctionsList({ store, log: silentLogger }, source, { names, allowShrink: true });

/** Screens and checks the answer carries nothing of the name: not whole, not a word of it. */
async function screenWithoutLeak(screening: NameScreening, name: string, birthYear: number | null = null): Promise<ScreeningResult> {
  const result = await screening.screen(name, birthYear);
  const text = JSON.stringify(result).toLowerCase();
  expect(text).not.toContain(name.toLowerCase());
  if (birthYear !== null) expect(text).not.toContain(String(birthYear));
  for (const word of name.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w.length > 2)) expect(text).not.toContain(word);
  return result;
}

describe('createNameScreening', () => {
  const own = blockStore('screening');

  it('is unavailable, never clear, before any names were loaded (the address list alone is not enough)', async () => {
    await refreshSanctionsList({ store: own(), log: silentLogger }, tiny);
    const screening = createNameScreening(own(), { recheckMs, now });
    const result = await screenWithoutLeak(screening, 'Jane Smith');
    expect(result).toEqual({ status: 'unavailable', reason: 'no SDN names have been loaded: run refresh-sanctions-list with a names source (SANCTIONS_NAMES_SOURCE)' });
  });

  it('finds a listed individual under spelling variants and reports the entry; other names are clear', async () => {
    await load(own(), withAlternates);
    const screening = createNameScreening(own(), { recheckMs, now });
    // OFAC's own aka, exactly: a hit on the aka.
    expect(await screenWithoutLeak(screening, 'Dmitrii Yuryevich Khoroshev')).toEqual({ status: 'hit', sdnUid: '48603', nameType: 'aka', score: 1, birthCheck: 'not_given' });
    // A passport without the patronymic, in another transliteration, in capitals, surname first.
    for (const name of ['Dmitry Khoroshev', 'DMITRIY KHOROSHEV', 'Khoroshev Dmitri', 'Dmitry Y. Khoroshev', 'Dmítry Yúryevich Khóroshev']) {
      const result = await screenWithoutLeak(screening, name);
      expect(result, name).toMatchObject({ status: 'hit', sdnUid: '48603' });
      expect((result as { score: number }).score, name).toBeGreaterThanOrEqual(screeningThreshold);
    }
    expect(await screenWithoutLeak(screening, 'Mr. Daniel Moreno')).toEqual({ status: 'hit', sdnUid: '15102', nameType: 'primary', score: 1, birthCheck: 'not_given' });
    expect(await screenWithoutLeak(screening, 'Daniel Gonzalo Moreno Jr.')).toEqual({ status: 'hit', sdnUid: '15102', nameType: 'aka', score: 1, birthCheck: 'not_given' });
    expect(await screenWithoutLeak(screening, 'Artem Lifshits')).toMatchObject({ status: 'hit', sdnUid: '29702', nameType: 'primary' });

    for (const name of ['Jane Smith', 'Dmitry Ivanov', 'Elena Khoroshilova', 'Daniel Martin', 'Maria Garcia Lopez']) {
      expect(await screenWithoutLeak(screening, name), name).toEqual({ status: 'clear' });
    }
  });

  it('screens individuals only: entities, vessels and aircraft named like people are not hits', async () => {
    const screening = createNameScreening(own(), { recheckMs, now });
    // The vessel IRIS MAKRAN and the entity's aka HESA TRADE CENTER, typed as a person's name.
    expect(await screenWithoutLeak(screening, 'Iris Makran')).toEqual({ status: 'clear' });
    expect(await screenWithoutLeak(screening, 'Hesa Trade Center')).toEqual({ status: 'clear' });
  });

  it('answers unavailable for a name with fewer than two whole words, and for no name', async () => {
    const screening = createNameScreening(own(), { recheckMs, now });
    const tooShort = {
      status: 'unavailable',
      reason: 'the name has fewer than 2 words that can be compared (one-word names and initials are not screened)',
    };
    expect(await screenWithoutLeak(screening, 'Khoroshev')).toEqual(tooShort);
    expect(await screenWithoutLeak(screening, 'D. Khoroshev')).toEqual(tooShort);
    expect(await screening.screen('  -- ', null)).toEqual(tooShort);
    expect(await screening.screen(undefined as unknown as string, null)).toEqual({ status: 'unavailable', reason: 'no name to screen' });
  });

  it('picks up a newer load after at most recheckMs, and not before', async () => {
    await load(own(), primariesOnly);
    const screening = createNameScreening(own(), { recheckMs, now });
    const primary = await screenWithoutLeak(screening, 'Dmitrii Yuryevich Khoroshev');
    expect(primary).toMatchObject({ status: 'hit', sdnUid: '48603', nameType: 'primary' });
    expect((primary as { score: number }).score).toBeLessThan(1);

    await load(own(), withAlternates);
    expect(await screening.screen('Dmitrii Yuryevich Khoroshev', null)).toEqual(primary);
    later();
    expect(await screening.screen('Dmitrii Yuryevich Khoroshev', null)).toEqual({ status: 'hit', sdnUid: '48603', nameType: 'aka', score: 1, birthCheck: 'not_given' });
  });

  it('takes a threshold, above 0 and at most 1', async () => {
    const exact = createNameScreening(own(), { recheckMs, now, threshold: 1 });
    expect(await exact.screen('Daniel Moreno', null)).toMatchObject({ status: 'hit', sdnUid: '15102' });
    expect(await exact.screen('Dmitry Khoroshev', null)).toEqual({ status: 'clear' });
    expect(() => createNameScreening(own(), { threshold: 0 })).toThrow('screening threshold must be above 0 and at most 1, got 0');
    expect(() => createNameScreening(own(), { threshold: 1.5 })).toThrow(RangeError);
  });
});

describe('createNameScreening: a year of birth as the second identifier', () => {
  const own = blockStore('screening-births');
  // Real rows of the 2024-05-03 list: two MOHAMMAD, Haji Baz (DOB 1958; DOB 12 Mar 1964), two
  // KIM, Yong Chol (DOB circa 1947 and alt. circa 1946; DOB 18 Feb 1962), ATIA, Hachim K. (no date).
  const rows = ['8867', '13127', '12211', '17614', '8348'];

  it('sets aside a match on an entry none of whose dates of birth is in the year; the best match left is the hit', async () => {
    const lines = readOfac('sdn-2024-05-03.csv').split('\r\n').filter((line) => rows.includes(line.split(',')[0]!));
    expect(lines).toHaveLength(rows.length);
    const file = path.join(files, 'same-names.csv');
    writeFileSync(file, `${lines.join('\r\n')}\r\n\x1a`);
    await load(own(), { kind: 'sdn-csv', sdnFile: file }, { kind: 'sdn-csv', sdnFile: tinySdn });
    const screening = createNameScreening(own(), { recheckMs, now });
    const screen = (name: string, year: number | null) => screenWithoutLeak(screening, name, year);

    // Without a year: the first of the equal matches, as before.
    expect(await screen('Haji Baz Mohammad', null)).toEqual({ status: 'hit', sdnUid: '8867', nameType: 'primary', score: 1, birthCheck: 'not_given' });
    expect(await screen('Haji Baz Mohammad', 1958)).toEqual({ status: 'hit', sdnUid: '8867', nameType: 'primary', score: 1, birthCheck: 'in_listed_years' });
    expect(await screen('Haji Baz Mohammad', 1964)).toEqual({ status: 'hit', sdnUid: '13127', nameType: 'primary', score: 1, birthCheck: 'in_listed_years' });
    expect(await screen('Haji Baz Mohammad', 1990)).toEqual({ status: 'clear' });
    // "circa 1947" and "circa 1946" reach two years either way: 1944 to 1949.
    for (const year of [1944, 1946, 1949]) expect(await screen('Yong Chol Kim', year), String(year)).toMatchObject({ status: 'hit', sdnUid: '12211' });
    expect(await screen('Yong Chol Kim', 1962)).toMatchObject({ status: 'hit', sdnUid: '17614' });
    for (const year of [1943, 1950, 1961, 1963]) expect(await screen('Yong Chol Kim', year), String(year)).toEqual({ status: 'clear' });
    // An entry that lists no date of birth is never set aside.
    for (const year of [null, 1950, 2001]) {
      expect(await screen('Hachim K. Atia', year), String(year)).toMatchObject({ status: 'hit', sdnUid: '8348', birthCheck: year === null ? 'not_given' : 'entry_undated' });
    }
  });
});

describe('createNameScreening: names that hold no individual, and of unknown type', () => {
  const own = blockStore('screening-types');

  it('is unavailable when the loaded names hold no individual', async () => {
    // SUEX OTC, S.R.O. alone: an entity (with addresses, so the refresh takes it).
    const suex = readOfac('sdn-tiny/sdn.csv').split('\r\n').find((line) => line.startsWith('33151,'))!;
    const file = path.join(files, 'entity-only.csv');
    writeFileSync(file, `${suex}\r\n\x1a`);
    await load(own(), { kind: 'sdn-csv', sdnFile: file }, { kind: 'sdn-csv', sdnFile: file });
    const screening = createNameScreening(own(), { recheckMs, now });
    expect(await screenWithoutLeak(screening, 'Suex Otc')).toEqual({ status: 'unavailable', reason: 'the loaded SDN names hold no individual: check SANCTIONS_NAMES_SOURCE' });
  });

  it('screens names whose entry type the source does not give (sdn_advanced.xml without party types)', async () => {
    const sample = new URL('./fixtures/sanctions/sdn_advanced-sample.xml', import.meta.url).pathname;
    await load(own(), { kind: 'sdn-advanced-xml', file: sample }, { kind: 'sdn-advanced-xml', file: sample });
    const screening = createNameScreening(own(), { recheckMs, now });
    expect(await screenWithoutLeak(screening, 'Hyon Sop Sim')).toEqual({ status: 'hit', sdnUid: '42498', nameType: 'primary', score: 1, birthCheck: 'not_given' });
  });
});

describe('createNameScreening when the store fails', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('screening-closed') });
    await load(store, withAlternates);
  });
  afterAll(async () => {
    await store.close();
  });

  it('is unavailable, with what failed but never the name, when the store cannot be read', async () => {
    const failing: Store = { ...store, withReadConnection: () => Promise.reject(new Error('IO Error: could not read block 42')) };
    const result = await screenWithoutLeak(createNameScreening(failing, { recheckMs, now }), 'Dmitry Khoroshev');
    expect(result).toEqual({ status: 'unavailable', reason: 'the SDN names could not be read: IO Error: could not read block 42' });
  });

  it('is unavailable once the store is closed, after answering from it while open', async () => {
    const screening = createNameScreening(store, { recheckMs, now });
    expect(await screenWithoutLeak(screening, 'Dmitry Khoroshev')).toMatchObject({ status: 'hit', sdnUid: '48603' });
    await store.close();
    later();
    expect(await screenWithoutLeak(screening, 'Dmitry Khoroshev')).toEqual({ status: 'unavailable', reason: 'the SDN names could not be read: store is closed' });
    expect(await screenWithoutLeak(createNameScreening(store, { recheckMs, now }), 'Jane Smith')).toEqual({
      status: 'unavailable',
      reason: 'the SDN names could not be read: store is closed',
    });
  });
});

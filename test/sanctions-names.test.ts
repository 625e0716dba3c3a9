// The SDN names that refresh-sanctions-list loads for name screening, against real DuckDB stores:
// read from sdn.csv + alt.csv and from sdn_advanced.xml, counted, replaced only when their source
// changed, in the same transaction as the addresses, refused on a sharp drop; and the settings
// that say where they come from.
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger, silentLogger } from '../pipeline/log.ts';
import { ListShrinkError, refreshSanctionsList, type NamesSource, type RefreshOptions, type SanctionsSource } from '../pipeline/sanctions/load.ts';
import { parseSdnAdvancedXml } from '../pipeline/sanctions/parse-sdn-advanced-xml.ts';
import { parseSdnCsvNames } from '../pipeline/sanctions/parse-sdn-csv-names.ts';
import { birthYearsOfRemarks } from '../pipeline/sanctions/birth-years.ts';
import { namesSourceFromSettings, SanctionsSourceError } from '../pipeline/sanctions/source-setting.ts';
import { JobInputError, runHandler } from '../jobs/handlers.ts';
import { loadConfig } from '../pipeline/config.ts';
import { addressListsDir, ofacPath } from './helpers/ofac-data.ts';
import { tempDataDir } from './helpers/temp.ts';
import { blockStore } from './helpers/block-store.ts';

const namesXml = new URL('./fixtures/sanctions/sdn_advanced-names.xml', import.meta.url).pathname;
const sampleXml = new URL('./fixtures/sanctions/sdn_advanced-sample.xml', import.meta.url).pathname;
const tinySdn = ofacPath('sdn-tiny/sdn.csv');
const tinyAlt = ofacPath('sdn-tiny/alt.csv');
const sdn2024 = ofacPath('sdn-2024-05-03.csv');
const alt2025 = ofacPath('sdn-2025-12-24-partial/alt.csv');
const tiny: SanctionsSource = { kind: 'sdn-csv', sdnFile: tinySdn, commentsFile: ofacPath('sdn-tiny/sdn_comments.csv') };
const tinyNames: NamesSource = { kind: 'sdn-csv', sdnFile: tinySdn, altFile: tinyAlt };
const work = tempDataDir('sanctions-names-files');

describe('parseSdnAdvancedXml: names', () => {
  it('reads primary names and akas/fkas/nkas with their entry types, "SURNAME, Given" from the Last Name parts, no weak akas', () => {
    const parsed = parseSdnAdvancedXml(readFileSync(namesXml, 'utf8'));
    expect(parsed.names.map((n) => `${n.sdnUid} ${n.nameType} ${n.sdnType}: ${n.name}`)).toEqual([
      '48603 primary individual: KHOROSHEV, Dmitry Yuryevich',
      '48603 primary individual: ХОРОШЕВ, Дмитрий Юрьевич',
      '48603 aka individual: KHOROSHEV, Dmitriy Yurevich',
      '48603 aka individual: YURIEVICH, Dmitry',
      '11195 primary entity: IRAN AIRCRAFT MANUFACTURING INDUSTRIAL COMPANY',
      '11195 aka entity: HESA TRADE CENTER',
      '11195 fka entity: IRAN AIRCRAFT MANUFACTURING COMPANY',
      '11195 nka entity: KARKHANEJATE SANAYE HAVAPAYMAIE IRAN',
      '40716 primary vessel: IRIS MAKRAN',
    ]);
    expect(parsed.nameWarnings).toEqual([]);
    expect(parsed.addresses).toEqual([{ sdnUid: '48603', label: 'XBT', address: 'bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z', listedAt: '2024-05-07' }]);
  });

  it('without party types in the document the entry type is unknown (screened), and says so apart from the address warnings', () => {
    const parsed = parseSdnAdvancedXml(readFileSync(sampleXml, 'utf8'));
    expect(parsed.names).toContainEqual({ sdnUid: '42498', name: 'SIM Hyon Sop', nameType: 'primary', sdnType: '' });
    expect(parsed.names).toContainEqual({ sdnUid: '38665', name: 'DSHRG RUSICH', nameType: 'aka', sdnType: '' });
    expect(parsed.names).toHaveLength(10);
    expect(parsed.nameWarnings).toEqual([expect.stringMatching(/^no PartySubTypeValues: .* every name is screened$/)]);
    expect(parsed.warnings).toEqual(['profile 900001: designation date {"Year":"2025","Month":"6"} is not a full date']);
  });

  it('reads dates of birth (Birthdate features) as years, widened when approximate; an unreadable one drops all of its profile', () => {
    const xml = readFileSync(namesXml, 'utf8');
    // KHOROSHEV's DOB 17 Apr 1993 in the fixture; the sample's only individual with a date, 1989.
    expect(parseSdnAdvancedXml(xml).births).toEqual([{ sdnUid: '48603', from: 1993, to: 1993 }]);
    expect(parseSdnAdvancedXml(readFileSync(sampleXml, 'utf8')).births).toEqual([{ sdnUid: '45404', from: 1989, to: 1989 }]);
    // The same period marked approximate ("circa 1993"), and one ending a year later.
    const approximate = xml.replace('<Start Approximate="false"', '<Start Approximate="true"');
    expect(parseSdnAdvancedXml(approximate).births).toEqual([{ sdnUid: '48603', from: 1991, to: 1995 }]);
    const range = xml.replace('<To><Year>1993</Year><Month>4</Month><Day>17</Day></To>\n              </End>', '<To><Year>1994</Year></To>\n              </End>');
    expect(parseSdnAdvancedXml(range).births).toEqual([{ sdnUid: '48603', from: 1993, to: 1994 }]);
    const unreadable = parseSdnAdvancedXml(xml.replaceAll('<Year>1993</Year>', '<Year>93</Year>'));
    expect(unreadable.births).toEqual([]);
    expect(unreadable.nameWarnings).toEqual(['profile 48603: a date of birth with years ["93","93","93","93"] is not read; none of its dates of birth is used']);
  });

  it('refuses an alias type the document does not define', () => {
    const broken = readFileSync(namesXml, 'utf8').replace('AliasTypeID="1400" Primary="false" LowQuality="false">\n            <DocumentedName ID="61003"', 'AliasTypeID="9999" Primary="false" LowQuality="false">\n            <DocumentedName ID="61003"');
    expect(() => parseSdnAdvancedXml(broken)).toThrow('sdn_advanced.xml: Alias with AliasTypeID 9999, which AliasTypeValues does not define');
  });
});

describe('dates of birth in sdn.csv remarks', () => {
  it('reads every form OFAC writes as years; "circa" reaches two years either way; one unreadable date gives none', () => {
    expect(birthYearsOfRemarks('DOB 28 Jul 1963; POB Toledo District, Belize')).toEqual([{ from: 1963, to: 1963 }]);
    expect(birthYearsOfRemarks('DOB 1969; alt. DOB 10 Oct 1969; (Alt. DOB: 10 October 1969; Alt. POB: Keren Eritrea')).toEqual([
      { from: 1969, to: 1969 },
      { from: 1969, to: 1969 },
      { from: 1969, to: 1969 },
    ]);
    expect(birthYearsOfRemarks('DOB circa 1947; alt. DOB circa 1946.')).toEqual([{ from: 1945, to: 1949 }, { from: 1944, to: 1948 }]);
    expect(birthYearsOfRemarks('DOB 1970 to 1975; DOB Jun 1973 to Aug 1974; DOB 15 Jan 1955 to 20 Feb 1956; DOB circa 1973-1975')).toEqual([
      { from: 1970, to: 1975 },
      { from: 1973, to: 1974 },
      { from: 1955, to: 1956 },
      { from: 1971, to: 1977 },
    ]);
    expect(birthYearsOfRemarks('nationality Russia')).toEqual([]);
    expect(birthYearsOfRemarks('DOB 1960; alt. DOB unknown')).toBeNull();
    expect(birthYearsOfRemarks('DOB 1975 to 1970')).toBeNull();
    // A date with more words after it would be read narrower than it is: not read at all.
    for (const remarks of ['DOB 1960 or 1961', 'DOB 1960 and 1961', 'DOB 1960, 1961', 'DOB between 1950 and 1955', 'DOB approximately 1960', 'DOB 1960 to circa 1965; POB Kabul', 'DOB Spring 1960']) {
      expect(birthYearsOfRemarks(remarks), remarks).toBeNull();
    }
  });

  it('gives 6,728 of the 6,854 individuals of the 2024 list their dates, none to an entry whose remarks sdn.csv cut', () => {
    const parsed = parseSdnCsvNames(readFileSync(sdn2024, 'utf8'));
    const individuals = new Set(parsed.names.filter((n) => n.sdnType === 'individual').map((n) => n.sdnUid));
    const dated = new Set(parsed.births.map((b) => b.sdnUid));
    expect([individuals.size, [...individuals].filter((uid) => dated.has(uid)).length]).toEqual([6854, 6728]);
    expect(parsed.warnings.filter((w) => w.includes('date of birth'))).toEqual([]);
    // 44718 (SEMENOV, Roman): remarks cut at 1,000 characters, where a later date may have been.
    const cut = readFileSync(sdn2024, 'utf8').split('\r\n').find((line) => line.startsWith('44718,'));
    expect(cut).toContain('DOB 08 Nov 1987');
    expect(dated.has('44718')).toBe(false);
    expect(parseSdnCsvNames(readFileSync(tinySdn, 'utf8')).births).toEqual([
      { sdnUid: '10278', from: 1963, to: 1963 },
      { sdnUid: '15102', from: 1972, to: 1972 },
      { sdnUid: '29702', from: 1992, to: 1992 },
      { sdnUid: '48603', from: 1993, to: 1993 },
    ]);
  });
});

describe('refreshSanctionsList with names', () => {
  const own = blockStore('sanctions-names');
  const refresh = (source: SanctionsSource, names: NamesSource, options: RefreshOptions = {}) =>
    refreshSanctionsList({ store: own(), log: silentLogger }, source, { names, ...options });
  const names = () => own().read('SELECT sdn_uid, name, name_type, sdn_type FROM sanctioned_names ORDER BY ALL');
  const loads = () => own().read('SELECT source, name_count, entry_count FROM sanctioned_name_loads ORDER BY loaded_at');

  it('loads sdn-tiny (all four files): primary names and the alternates of listed entries; reports and logs the counts', async () => {
    const logged: string[] = [];
    const result = await refreshSanctionsList({ store: own(), log: createLogger('test', (line) => logged.push(line)) }, tiny, { names: tinyNames });
    expect(result).toMatchObject({ changed: true, addressCount: 26, entryCount: 3, names: { changed: true, nameCount: 30, entryCount: 17 } });
    expect(result.names!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const rows = await names();
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.sdn_uid === '48603')).toEqual([
      { sdn_uid: '48603', name: 'KHOROSHEV, Dmitrii Yuryevich', name_type: 'aka', sdn_type: 'individual' },
      { sdn_uid: '48603', name: 'KHOROSHEV, Dmitriy Yurevich', name_type: 'aka', sdn_type: 'individual' },
      { sdn_uid: '48603', name: 'KHOROSHEV, Dmitry Yuryevich', name_type: 'primary', sdn_type: 'individual' },
      { sdn_uid: '48603', name: 'YURIEVICH, Dmitry', name_type: 'aka', sdn_type: 'individual' },
    ]);
    expect(rows).toContainEqual({ sdn_uid: '40716', name: 'IRIS MAKRAN', name_type: 'primary', sdn_type: 'vessel' });
    expect(rows).toContainEqual({ sdn_uid: '11195', name: 'HESA TRADE CENTER', name_type: 'aka', sdn_type: 'entity' });
    // alt.csv rows of entries sdn-tiny's sdn.csv lacks are left out, and said so.
    expect(rows.filter((r) => r.name === 'KARADH AL-HASSAN')).toEqual([]);
    expect(await loads()).toEqual([{ source: `${tinySdn} + ${tinyAlt}`, name_count: 30, entry_count: 17 }]);

    const warning = logged.find((line) => line.includes(' warn test:sanctions sanctions names source has defects'));
    expect(warning).toContain('alt.csv names 5 entries sdn.csv does not list (10416, 11935, 18820, 30221, 29445)');
    const info = logged.find((line) => line.includes(' info test:sanctions sanctions list replaced, names replaced'));
    expect(info).toContain('"nameCount":30');
    expect(info).toContain('"primary individual":4');
  });

  it('does nothing to the names when their content is unchanged, even from another folder', async () => {
    const folder = path.join(work, 'tiny-copy');
    mkdirSync(folder, { recursive: true });
    for (const file of ['sdn.csv', 'alt.csv']) copyFileSync(ofacPath(`sdn-tiny/${file}`), path.join(folder, file));
    const before = await names();
    const result = await refresh(tiny, { kind: 'sdn-csv', sdnFile: path.join(folder, 'sdn.csv'), altFile: path.join(folder, 'alt.csv') });
    expect(result).toMatchObject({ changed: false, names: { changed: false, nameCount: 30, entryCount: 17 } });
    expect(await names()).toEqual(before);
    expect(await loads()).toHaveLength(1);
  });

  it('replaces the names alone when only alt.csv changed', async () => {
    const folder = path.join(work, 'tiny-alt-changed');
    mkdirSync(folder, { recursive: true });
    copyFileSync(tinySdn, path.join(folder, 'sdn.csv'));
    const alt = readFileSync(tinyAlt, 'latin1').split('\r\n');
    writeFileSync(path.join(folder, 'alt.csv'), alt.filter((line) => !line.includes('YURIEVICH')).join('\r\n'), 'latin1');
    const result = await refresh(tiny, { kind: 'sdn-csv', sdnFile: path.join(folder, 'sdn.csv'), altFile: path.join(folder, 'alt.csv') });
    expect(result).toMatchObject({ changed: false, names: { changed: true, nameCount: 29, entryCount: 17 } });
    expect((await names()).filter((r) => r.name === 'YURIEVICH, Dmitry')).toEqual([]);
    expect(await loads()).toHaveLength(2);
  });

  it('refuses a names source with no names, keeping the previous ones', async () => {
    const noNames = path.join(work, 'no-names.csv');
    const khoroshev = readFileSync(tinySdn, 'utf8').split('\r\n').find((line) => line.startsWith('48603,'))!;
    writeFileSync(noNames, `${khoroshev.replace('"KHOROSHEV, Dmitry Yuryevich"', '-0- ')}\r\n\x1a`);
    await expect(refresh(tiny, { kind: 'sdn-csv', sdnFile: noNames })).rejects.toThrow(`${noNames}: no SDN names found; keeping the previous names`);
    expect(await names()).toHaveLength(29);
  });

  it('reads sdn_advanced.xml once for addresses and names when both come from it', async () => {
    let requests = 0;
    const server: Server = createServer((_req, res) => {
      requests++;
      res.end(readFileSync(namesXml));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sdn_advanced.xml`;
      const result = await refresh({ kind: 'sdn-advanced-xml', file: url }, { kind: 'sdn-advanced-xml', file: url }, { allowShrink: true });
      expect(result).toMatchObject({ changed: true, addressCount: 1, names: { changed: true, nameCount: 9, entryCount: 3 } });
      expect(requests).toBe(1);
      expect(await names()).toContainEqual({ sdn_uid: '48603', name: 'ХОРОШЕВ, Дмитрий Юрьевич', name_type: 'primary', sdn_type: 'individual' });
      expect((await loads()).at(-1)).toEqual({ source: url, name_count: 9, entry_count: 3 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('refreshSanctionsList with names: dates of birth', () => {
  const own = blockStore('sanctions-births');
  const refresh = () => refreshSanctionsList({ store: own(), log: silentLogger }, tiny, { names: tinyNames });
  const births = () => own().read('SELECT sdn_uid, born_from, born_to FROM sanctioned_births ORDER BY ALL');

  it('writes them with the names; a load made before they were read (migration 039) is loaded again, once', async () => {
    expect(await refresh()).toMatchObject({ names: { changed: true, birthCount: 4 } });
    const written = await births();
    expect(written).toEqual([
      { sdn_uid: '10278', born_from: 1963, born_to: 1963 },
      { sdn_uid: '15102', born_from: 1972, born_to: 1972 },
      { sdn_uid: '29702', born_from: 1992, born_to: 1992 },
      { sdn_uid: '48603', born_from: 1993, born_to: 1993 },
    ]);
    // As a load from before the dates were read leaves it: no dates, no count.
    await own().write(async (tx) => {
      await tx.run('DELETE FROM sanctioned_births');
      await tx.run('UPDATE sanctioned_name_loads SET birth_count = NULL');
    });
    expect(await refresh()).toMatchObject({ changed: false, names: { changed: true, birthCount: 4 } });
    expect(await births()).toEqual(written);
    expect(await refresh()).toMatchObject({ names: { changed: false } });
    expect(await own().read('SELECT birth_count FROM sanctioned_name_loads ORDER BY loaded_at')).toEqual([{ birth_count: null }, { birth_count: 4 }]);
  });
});

describe('refreshSanctionsList with names: the real 2024 list', () => {
  const own = blockStore('sanctions-names-2024');

  it('loads the 2024 primary names alone, then with the 2025 alternates of the entries it lists', async () => {
    const run = (names: NamesSource) => refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'sdn-csv', sdnFile: sdn2024 }, { names });
    expect(await run({ kind: 'sdn-csv', sdnFile: sdn2024 })).toMatchObject({ names: { changed: true, nameCount: 14_965, entryCount: 14_965 } });
    expect(await run({ kind: 'sdn-csv', sdnFile: sdn2024, altFile: alt2025 })).toMatchObject({ changed: false, names: { changed: true, nameCount: 32_612, entryCount: 14_965 } });
    const byType = await own().read('SELECT name_type, sdn_type, count(*)::INTEGER AS n FROM sanctioned_names GROUP BY ALL ORDER BY ALL');
    expect(byType).toContainEqual({ name_type: 'primary', sdn_type: 'individual', n: 6854 });
    expect(byType).toContainEqual({ name_type: 'aka', sdn_type: 'individual', n: 8155 });
    expect(byType).toContainEqual({ name_type: 'primary', sdn_type: 'entity', n: 6884 });
  });
});

describe('refreshSanctionsList with names refusing a sharp drop', () => {
  const own = blockStore('sanctions-names-shrink');
  const run = (source: SanctionsSource, names: NamesSource, options?: RefreshOptions) => refreshSanctionsList({ store: own(), log: silentLogger }, source, { names, ...options });
  const counts = async () => (await own().read('SELECT (SELECT count(*) FROM sanctioned_names)::INTEGER AS names, (SELECT count(*) FROM sanctioned_addresses)::INTEGER AS addresses'))[0];

  it('keeps the names (and the addresses of the same refresh) when the new names lack more than a tenth', async () => {
    await run({ kind: 'sdn-csv', sdnFile: sdn2024 }, { kind: 'sdn-csv', sdnFile: sdn2024, altFile: alt2025 });
    expect(await counts()).toEqual({ names: 32_612, addresses: 288 });

    // Same addresses, the names of sdn-tiny: refused.
    const refused = run({ kind: 'sdn-csv', sdnFile: sdn2024 }, tinyNames);
    await expect(refused).rejects.toThrow(ListShrinkError);
    // Loaded names are counted per (entry, name): 32,591 of them (one name may be an aka and an fka).
    await expect(refused).rejects.toThrow(/sdn-tiny\/alt\.csv: lacks 32571 of the 32591 loaded SDN names \(more than 10%\).*\{"allowShrink": true\}$/);

    // A changed address source that alone would load (first-seen dates added), with names that
    // drop: neither is loaded, the refresh is one transaction.
    const dated: SanctionsSource = { kind: 'sdn-csv', sdnFile: sdn2024, firstSeenFile: ofacPath('address-first-seen.csv') };
    await expect(run(dated, tinyNames)).rejects.toThrow('loaded SDN names');
    expect(await counts()).toEqual({ names: 32_612, addresses: 288 });
    expect(await own().read('SELECT count(*)::INTEGER AS n FROM sanctions_list_loads')).toEqual([{ n: 1 }]);
    expect(await own().read('SELECT count(*)::INTEGER AS n FROM sanctioned_addresses WHERE listed_at IS NOT NULL')).toEqual([{ n: 0 }]);

    expect(await run(tiny, tinyNames, { allowShrink: true })).toMatchObject({ changed: true, names: { changed: true, nameCount: 30 } });
    expect(await counts()).toEqual({ names: 30, addresses: 32 }); // 32 rows: 26 addresses, some under two labels
  });
});

describe('refresh-sanctions-list job: where the names come from', () => {
  const own = blockStore('sanctions-names-job');
  const job = (env: Record<string, string>, data: unknown = { allowShrink: true }, log = silentLogger) =>
    runHandler({ store: own(), config: loadConfig({ DATA_DIR: work, ...env }), log }, 'refresh-sanctions-list', data);

  it('an sdn.csv list source gives its own names, with alt.csv beside it', async () => {
    await expect(job({ SANCTIONS_LIST_SOURCE: tinySdn })).resolves.toMatchObject({ addressCount: 26, names: { nameCount: 30, entryCount: 17 } });
  });

  it('a folder of address lists takes the names of SANCTIONS_NAMES_SOURCE; without it the names are left and a warning says so', async () => {
    await expect(job({ SANCTIONS_LIST_SOURCE: addressListsDir, SANCTIONS_NAMES_SOURCE: sdn2024 })).resolves.toMatchObject({
      addressCount: 641,
      names: { changed: true, nameCount: 14_965 },
    });
    const logged: string[] = [];
    const result = await job({ SANCTIONS_LIST_SOURCE: addressListsDir }, {}, createLogger('test', (line) => logged.push(line)));
    expect(result).not.toHaveProperty('names');
    expect(logged.some((line) => line.includes(' warn test:sanctions no SDN names source, names not refreshed: set SANCTIONS_NAMES_SOURCE'))).toBe(true);
    expect(await own().read('SELECT count(*)::INTEGER AS n FROM sanctioned_names')).toEqual([{ n: 14_965 }]);
  });

  it('a bad SANCTIONS_NAMES_SOURCE and a sharp drop of names fail without retries', async () => {
    await expect(job({ SANCTIONS_LIST_SOURCE: addressListsDir, SANCTIONS_NAMES_SOURCE: addressListsDir })).rejects.toThrow(JobInputError);
    await expect(job({ SANCTIONS_LIST_SOURCE: addressListsDir, SANCTIONS_NAMES_SOURCE: addressListsDir })).rejects.toThrow(
      `SANCTIONS_NAMES_SOURCE ${addressListsDir} is neither an .xml (sdn_advanced.xml) nor a .csv (sdn.csv) file/URL`,
    );
    const refused = job({ SANCTIONS_LIST_SOURCE: addressListsDir, SANCTIONS_NAMES_SOURCE: tinySdn }, {});
    await expect(refused).rejects.toThrow(JobInputError);
    await expect(refused).rejects.toThrow('loaded SDN names');
  });
});

describe("the demo's fallback list", () => {
  const own = blockStore('sanctions-names-demo');

  it("the demo's fallback, devnet/fixtures/ofac-sdn-tiny, is sdn-tiny unchanged and loads as list and names", async () => {
    const shipped = new URL('../devnet/fixtures/ofac-sdn-tiny/', import.meta.url).pathname;
    for (const file of ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv']) {
      expect(readFileSync(path.join(shipped, file)).equals(readFileSync(ofacPath(`sdn-tiny/${file}`))), file).toBe(true);
    }
    const sdn = path.join(shipped, 'sdn.csv');
    await expect(runHandler({ store: own(), config: loadConfig({ DATA_DIR: work, SANCTIONS_LIST_SOURCE: sdn, SANCTIONS_NAMES_SOURCE: sdn }), log: silentLogger }, 'refresh-sanctions-list', {})).resolves.toMatchObject({ addressCount: 26, names: { nameCount: 30, entryCount: 17 } });
  });
});

describe('namesSourceFromSettings', () => {
  it('takes the names of the list source when it is an sdn.csv or sdn_advanced.xml, alt.csv beside a local sdn.csv', () => {
    expect(namesSourceFromSettings(tinySdn, undefined)).toEqual({ kind: 'sdn-csv', sdnFile: tinySdn, altFile: tinyAlt });
    expect(namesSourceFromSettings(sdn2024, undefined)).toEqual({ kind: 'sdn-csv', sdnFile: sdn2024 });
    expect(namesSourceFromSettings('https://example.org/SDN.CSV', undefined)).toEqual({ kind: 'sdn-csv', sdnFile: 'https://example.org/SDN.CSV' });
    expect(namesSourceFromSettings('https://example.org/sdn_advanced.xml?x=1', undefined)).toEqual({ kind: 'sdn-advanced-xml', file: 'https://example.org/sdn_advanced.xml?x=1' });
  });

  it('a folder of address lists has none; SANCTIONS_NAMES_SOURCE overrides; anything but .csv or .xml is refused', () => {
    expect(namesSourceFromSettings(addressListsDir, undefined)).toBeNull();
    expect(namesSourceFromSettings(addressListsDir, tinySdn)).toEqual(tinyNames);
    expect(namesSourceFromSettings(sdn2024, namesXml)).toEqual({ kind: 'sdn-advanced-xml', file: namesXml });
    expect(() => namesSourceFromSettings(sdn2024, ofacPath('address-lists-2024-09-27/sanctioned_addresses_ETH.txt'))).toThrow(SanctionsSourceError);
  });
});


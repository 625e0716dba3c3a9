// Parsing the real OFAC legacy CSV and the 0xB10C address lists, and checking one against the other.
import { describe, expect, it } from 'vitest';
import { readLegacyCsv } from '../pipeline/sanctions/legacy-csv.ts';
import { parseSdnCsv, remarksCut } from '../pipeline/sanctions/parse-sdn-csv.ts';
import { parseAddressList, parseAddressLists } from '../pipeline/sanctions/parse-address-lists.ts';
import { firstSeenKey, parseFirstSeen } from '../pipeline/sanctions/first-seen.ts';
import type { ListedAddress } from '../pipeline/sanctions/listing.ts';
import { addressListFiles, readOfac } from './helpers/ofac-data.ts';

const sdn2024 = readOfac('sdn-2024-05-03.csv');
const lists = parseAddressLists(addressListFiles());
const listKeys = new Set(lists.map((a) => firstSeenKey(a.label, a.address)));
const keys = (addresses: ListedAddress[]) => new Set(addresses.map((a) => firstSeenKey(a.label, a.address)));

describe('OFAC legacy CSV records', () => {
  it('reads quoted fields, -0- as empty, CRLF and the trailing Ctrl-Z', () => {
    const text = '36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA"\r\n173,"ANGLO-CARIBBEAN CO., LTD.",-0- ,"say ""hi"""\r\n\x1a';
    expect(readLegacyCsv(text, 4, 't.csv')).toEqual([
      ['36', 'AEROCARIBBEAN AIRLINES', '', 'CUBA'],
      ['173', 'ANGLO-CARIBBEAN CO., LTD.', '', 'say "hi"'],
    ]);
  });

  it('refuses a record with the wrong number of fields, naming its line', () => {
    expect(() => readLegacyCsv('1,a,b\r\n2,a\r\n', 3, 'sdn.csv')).toThrow('sdn.csv line 2: 2 fields, expected 3');
  });

  it('refuses a quote inside an unquoted field', () => {
    expect(() => readLegacyCsv('1,a"b,c\r\n', 3, 'sdn.csv')).toThrow('sdn.csv line 1: a quote inside an unquoted field');
  });

  it('refuses a file that stops inside a quoted field', () => {
    const truncated = sdn2024.slice(0, sdn2024.indexOf('Digital Currency Address - ETH') + 40);
    expect(() => readLegacyCsv(truncated, 12, 'sdn.csv')).toThrow(/unterminated quoted field/);
  });

  it('reads all 14,965 entries of sdn-2024-05-03.csv', () => {
    const records = readLegacyCsv(sdn2024, 12, 'sdn.csv');
    expect(records).toHaveLength(14_965);
    expect(records.filter((r) => r[11]!.length === remarksCut)).toHaveLength(18);
  });
});

describe('parseSdnCsv on sdn-2024-05-03.csv (no sdn_comments.csv of that date)', () => {
  const parsed = parseSdnCsv(sdn2024);

  it('extracts 288 addresses of 55 entries under 15 labels', () => {
    expect(parsed.entryCount).toBe(14_965);
    expect(parsed.addresses).toHaveLength(288);
    expect(new Set(parsed.addresses.map((a) => a.sdnUid)).size).toBe(55);
    const byLabel: Record<string, number> = {};
    for (const a of parsed.addresses) byLabel[a.label] = (byLabel[a.label] ?? 0) + 1;
    expect(byLabel).toEqual({ ARB: 1, BCH: 2, BSC: 1, BTG: 1, DASH: 3, ETC: 1, ETH: 49, LTC: 4, TRX: 4, USDC: 2, USDT: 17, XBT: 197, XMR: 3, XVG: 1, ZEC: 2 });
    expect(parsed.malformed).toEqual([]);
  });

  it('takes the full stop that ends the remarks off the last address', () => {
    expect(parsed.addresses).toContainEqual({ sdnUid: '31811', label: 'XBT', address: '17a5bpKvEp1j1Trs4qTbcNZrby53JbaS9C', listedAt: null });
  });

  it('reports the 18 cut entries, and never loads the 10 address items the cut fell in', () => {
    expect(parsed.cut).toHaveLength(18);
    expect(parsed.cut.filter((c) => c.fragment !== null)).toEqual([
      { sdnUid: '29703', fragment: 'Digital Currency Addres' },
      { sdnUid: '30518', fragment: 'alt. Digital Currency Address - XBT 1Gq' },
      { sdnUid: '31212', fragment: 'alt. Digital' },
      { sdnUid: '33151', fragment: 'alt. Digital Currency Address - XBT 1B64QRxf' },
      { sdnUid: '33854', fragment: 'alt. Digital Currency Address - XBT 3' },
      { sdnUid: '36216', fragment: 'alt. Digital Currency Address - XBT 1B11Ezqg3AXj' },
      { sdnUid: '37070', fragment: 'alt. Digital Currency Address - XBT 3F6bbvS1krsc1qR8FsbTDfYQyvkMm' },
      { sdnUid: '39585', fragment: 'alt. Digital Currency Address - XBT 1N6XqS' },
      { sdnUid: '39593', fragment: 'alt. Digital Currency Address - XBT' },
      { sdnUid: '39796', fragment: 'alt. Digital Currency A' },
    ]);
    // A cut address looks plausible (29 of 34 characters of a real one) and must not be listed.
    expect(parsed.addresses.some((a) => a.address === '3F6bbvS1krsc1qR8FsbTDfYQyvkMm')).toBe(false);
  });

  it('every address is in the later 0xB10C lists of 2024-09-27; the lists hold 367 more', () => {
    const fromCsv = keys(parsed.addresses);
    expect(fromCsv.size).toBe(287); // one address is listed under two entries
    expect([...fromCsv].filter((k) => !listKeys.has(k))).toEqual([]);
    // Differences are expected: cut remarks (no continuation file for that date), designations
    // after 2024-05-03, entries delisted or renumbered in between.
    expect([...listKeys].filter((k) => !fromCsv.has(k))).toHaveLength(367);
  });
});

describe('joining remarks with sdn_comments.csv', () => {
  it('sdn-tiny: 33151 continues in the middle of an XBT address', () => {
    const parsed = parseSdnCsv(readOfac('sdn-tiny/sdn.csv'), readOfac('sdn-tiny/sdn_comments.csv'));
    expect(parsed.entryCount).toBe(17);
    expect(parsed.cut).toEqual([]);
    expect(parsed.addresses.filter((a) => a.sdnUid === '33151')).toHaveLength(25);
    expect(parsed.addresses).toContainEqual({ sdnUid: '33151', label: 'XBT', address: '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi', listedAt: null });
    expect(listKeys.has(firstSeenKey('XBT', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'))).toBe(true);
    // With those of 29702 and 48603, whose remarks are not cut.
    expect(parsed.addresses).toHaveLength(32);
    // Without the continuation, the cut item is reported instead of loaded.
    expect(parseSdnCsv(readOfac('sdn-tiny/sdn.csv')).cut).toEqual([{ sdnUid: '33151', fragment: 'alt. Digital Currency Address - XBT 1B64QRxf' }]);
  });

  it('2025-12 continuation rows complete the entries cut in 2024-05, into addresses of the 2024-09 lists', () => {
    // The two files are from different publications: use only continuations of entries the
    // 2024 file cuts, whose first 1,000 characters did not change.
    const cutUids = new Set(readLegacyCsv(sdn2024, 12, 'sdn.csv').filter((r) => r[11]!.length === remarksCut).map((r) => r[0]));
    const rows = readOfac('sdn-2025-12-24-partial/sdn_comments.csv').split('\r\n');
    const fitting = rows.filter((row) => cutUids.has(row.slice(0, row.indexOf(','))));
    expect(fitting).toHaveLength(17);

    const parsed = parseSdnCsv(sdn2024, `${fitting.join('\r\n')}\r\n\x1a`);
    expect(parsed.addresses).toHaveLength(524);
    expect(parsed.cut).toEqual([{ sdnUid: '39796', fragment: 'alt. Digital Currency A' }]); // no 2025 row for 39796
    for (const [label, address] of [
      ['XBT', '1GqChmWqGtsaLrGbHfgdrV5Nkvahtjjuxr'], // "…XBT 1Gq" + "ChmWq…"
      ['XBT', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'],
      ['XBT', '3F6bbvS1krsc1qR8FsbTDfYQyvkMm3QvmR'],
      ['XBT', '1N6XqSf3ULpNjko9LrJmHudRoLitjwkETN'],
      ['ETH', '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c'], // "Digital Currency Addres" + "s - ETH 0x…"
      ['BCH', 'qq3vlashthktqpeppuv7trmw070e3mydgq63zq348v'], // "alt. Digital" + " Currency Address - BCH …"
    ]) {
      expect(parsed.addresses.some((a) => a.label === label && a.address === address)).toBe(true);
    }
    expect([...keys(parsed.addresses)].filter((k) => !listKeys.has(k))).toEqual([]);
  });

  it('refuses continuations of remarks that are not cut: the files are from different publications', () => {
    expect(() => parseSdnCsv(sdn2024, readOfac('sdn-2025-12-24-partial/sdn_comments.csv'))).toThrow(
      'sdn_comments.csv continues 11 entries whose sdn.csv remarks are not cut at 1000 characters ' +
        '(17016, 17143, 22985, 34682, 34741, 35163, 36025, 43421, 53033, 55505, …): the two files are not from the same publication',
    );
  });
});

describe('0xB10C address lists of 2024-09-27', () => {
  it('reads 654 listings of 641 distinct addresses under 17 labels, label from the file name', () => {
    expect(lists).toHaveLength(654);
    const byLabel: Record<string, number> = {};
    for (const a of lists) byLabel[a.label] = (byLabel[a.label] ?? 0) + 1;
    expect(byLabel).toMatchObject({ XBT: 435, ETH: 152, USDT: 26, LTC: 10, BCH: 7, TRX: 6 });
    expect(Object.keys(byLabel)).toHaveLength(17);
    expect(new Set(lists.map((a) => a.address.toLowerCase())).size).toBe(641);
    expect(lists.every((a) => a.sdnUid === '' && a.listedAt === null)).toBe(true);
  });

  it('reads the .txt and .json forms alike, and refuses a pair that disagrees', () => {
    const files = addressListFiles().filter((f) => f.name.startsWith('sanctioned_addresses_USDT'));
    const [json, txt] = [files.find((f) => f.name.endsWith('.json'))!, files.find((f) => f.name.endsWith('.txt'))!];
    expect(parseAddressList(json.name, json.text)).toEqual(parseAddressList(txt.name, txt.text));
    expect(() => parseAddressLists([txt, { name: json.name, text: '["0x175d44451403Edf28469dF03A9280c1197ADb92c"]' }])).toThrow(
      'sanctioned_addresses_USDT.txt and .json list different addresses',
    );
    expect(() => parseAddressList('sanctioned_addresses_ETH.json', '{"a":1}')).toThrow('expected a JSON array');
    expect(() => parseAddressList('sanctioned_addresses_ETH.json', json.text.slice(0, 100))).toThrow(/^sanctioned_addresses_ETH\.json: /);
  });

  it('refuses a pair of the same length that differs in one address', () => {
    const files = addressListFiles();
    const [json, txt] = ['json', 'txt'].map((ext) => files.find((f) => f.name === `sanctioned_addresses_USDT.${ext}`)!);
    const usdt = parseAddressList(json!.name, json!.text).map((a) => a.address);
    // The last USDT address swapped for a real ETH one: as many addresses, one different.
    const eth = parseAddressList('sanctioned_addresses_ETH.txt', files.find((f) => f.name === 'sanctioned_addresses_ETH.txt')!.text)[0]!.address;
    expect(usdt).not.toContain(eth);
    const swapped = JSON.stringify([...usdt.slice(0, -1), eth]);
    expect(() => parseAddressLists([txt!, { name: json!.name, text: swapped }])).toThrow('sanctioned_addresses_USDT.txt and .json list different addresses');
  });

  it('reads a list whose label has digits (none so far) rather than skipping it', () => {
    const files = [{ name: 'sanctioned_addresses_USDT0.txt', text: '0x175d44451403Edf28469dF03A9280c1197ADb92c\n' }];
    expect(parseAddressLists(files)).toEqual([{ sdnUid: '', label: 'USDT0', address: '0x175d44451403Edf28469dF03A9280c1197ADb92c', listedAt: null }]);
  });

  it('trims addresses and skips blank lines, in both forms; the label comes from the file name', () => {
    const evm = '0x175d44451403Edf28469dF03A9280c1197ADb92c';
    const btc = '1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V';
    const expected = [
      { sdnUid: '', label: 'XBT', address: evm, listedAt: null },
      { sdnUid: '', label: 'XBT', address: btc, listedAt: null },
    ];
    expect(parseAddressList('sanctioned_addresses_XBT.txt', `  ${evm} \r\n\r\n\t${btc}\n   \n`)).toEqual(expected);
    expect(parseAddressList('sanctioned_addresses_XBT.json', JSON.stringify([` ${evm}`, '', `${btc}\t`]))).toEqual(expected);
    expect(() => parseAddressList('sdn_addresses_XBT.txt', evm)).toThrow('is not named sanctioned_addresses_<LABEL>.txt or .json');
  });
});

describe('address-first-seen.csv', () => {
  const firstSeen = parseFirstSeen(readOfac('address-first-seen.csv'));

  it('keys 657 listings; an EVM address in two cases is one', () => {
    expect(firstSeen.size).toBe(657);
    expect(firstSeen.get(firstSeenKey('ETH', '0xCa0840578f57fE71599D29375e16783424023357'))).toEqual({ sdnUids: [], listedAt: null });
  });

  it('uses a date only when it is the first sighting', () => {
    // Exact dates in both columns: the earlier one.
    expect(firstSeen.get(firstSeenKey('ETH', '0x19F8f2B0915Daa12a3f5C9CF01dF9E24D53794F7'))).toEqual({ sdnUids: ['48432'], listedAt: '2024-05-01' });
    // The scrape saw it on 2022-05-06; the lists' "<=2022-09-03" only says "by then".
    expect(firstSeen.get(firstSeenKey('ETH', '0x08723392Ed15743cc38513C4925f5e6be5c17243'))?.listedAt).toBe('2022-05-06');
    // The lists had it by 2022-09-03, before the scrape's 2022-11-09: the first sighting is unknown.
    expect(firstSeen.get(firstSeenKey('ETH', '0x03893a7c7463AE47D46bc7f091665f1893656003'))?.listedAt).toBeNull();
    expect(firstSeen.get(firstSeenKey('ETH', '0x22aaA7720ddd5388A3c0A3333430953C68f1849b'))?.sdnUids).toEqual(['38499', '39796']);
  });
});

describe('parser edge cases the real files reach or could reach', () => {
  it('a download cut just after a line break, in the first field of a record, fails instead of losing the record', () => {
    const lines = sdn2024.split('\r\n');
    // The first line whole, then the first two characters of the second line's ent_num.
    const truncated = `${lines[0]}\r\n${lines[1]!.slice(0, 2)}`;
    expect(() => readLegacyCsv(truncated, 12, 'sdn.csv')).toThrow('sdn.csv line 2: 1 fields, expected 12');
    expect(() => parseSdnCsv(truncated)).toThrow('sdn.csv line 2: 1 fields, expected 12');
  });

  it('a download cut just after a comma fails instead of losing the record', () => {
    const lines = sdn2024.split('\r\n');
    // The first line whole, then the second line up to and including the comma after its name.
    const truncated = `${lines[0]}\r\n${lines[1]!.slice(0, lines[1]!.indexOf('",') + 2)}`;
    expect(truncated.endsWith('"ANGLO-CARIBBEAN CO., LTD.",')).toBe(true);
    expect(() => readLegacyCsv(truncated, 12, 'sdn.csv')).toThrow('sdn.csv line 2: 3 fields, expected 12');
  });

  it('refuses a record with more fields than the columns, naming its line', () => {
    const lines = sdn2024.split('\r\n');
    const extra = `${lines[0]}\r\n${lines[1]},-0- \r\n${lines[2]}\r\n\x1a`;
    expect(() => readLegacyCsv(extra, 12, 'sdn.csv')).toThrow('sdn.csv line 2: 13 fields, expected 12');
  });

  it('reports an address item it cannot read instead of dropping it silently', () => {
    // Entry 27307's real row with a space typed into its first address.
    const row = sdn2024.split('\r\n').find((line) => line.startsWith('27307,'))!;
    const typo = row.replace('0x098B716B8Aaf2151', '0x098B716B8Aaf2151 ');
    expect(typo).not.toBe(row);
    const parsed = parseSdnCsv(`${typo}\r\n\x1a`);
    expect(parsed.malformed).toEqual([{ sdnUid: '27307', item: 'Digital Currency Address - ETH 0x098B716B8Aaf2151 2996dC57EB0615e2383E2f96' }]);
    expect(parsed.addresses.map((a) => a.address)).not.toContain('0x098B716B8Aaf21512996dC57EB0615e2383E2f96');
    expect(parseSdnCsv(`${row}\r\n\x1a`).malformed).toEqual([]);
  });

  it('counts the line breaks inside quoted fields when naming the line of a bad record', () => {
    expect(() => readLegacyCsv('1,"two\r\nlines"\r\n2\r\n', 2, 'sdn_comments.csv')).toThrow('sdn_comments.csv line 3: 1 fields, expected 2');
  });

  it('joins several sdn_comments.csv rows of one entry, in order, with no separator', () => {
    const comments = readOfac('sdn-tiny/sdn_comments.csv');
    const whole = parseSdnCsv(readOfac('sdn-tiny/sdn.csv'), comments);
    // Split 33151's one continuation row into two, in the middle of its second address.
    const at = comments.indexOf('0x2f389ce8bd') + 6;
    const split = `${comments.slice(0, at)}"\r\n33151,"${comments.slice(at)}`;
    expect(split.split('\r\n').filter((l) => l.startsWith('33151,'))).toHaveLength(2);
    const parsed = parseSdnCsv(readOfac('sdn-tiny/sdn.csv'), split);
    expect(parsed.addresses).toEqual(whole.addresses);
    expect(parsed.addresses).toContainEqual({ sdnUid: '33151', label: 'ETH', address: '0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535', listedAt: null });
  });

  it('remarks of fewer than 1,000 characters but 1,000 UTF-8 bytes count as cut', () => {
    const remarks = `${'é'.repeat(479)}x; Digital Currency Address - XBT 1B64QRxf`; // 521 characters, 1,000 bytes
    expect(Buffer.byteLength(remarks, 'utf8')).toBe(remarksCut);
    const row = `36,"AEROCARIBBEAN AIRLINES",-0-,"CUBA",-0-,-0-,-0-,-0-,-0-,-0-,-0-,"${remarks}"\r\n\x1a`;
    expect(parseSdnCsv(row).cut).toEqual([{ sdnUid: '36', fragment: 'Digital Currency Address - XBT 1B64QRxf' }]);
    expect(parseSdnCsv(row).addresses).toEqual([]);
  });

  it('refuses a folder with no list file at all', () => {
    expect(() => parseAddressLists([])).toThrow('no sanctioned_addresses_<LABEL>.txt or .json files');
    expect(() => parseAddressLists([{ name: 'README.md', text: 'x' }])).toThrow('no sanctioned_addresses_<LABEL>.txt or .json files');
  });

  it('refuses a .json that lists fewer addresses than the .txt of the same label', () => {
    const txt = addressListFiles().find((f) => f.name === 'sanctioned_addresses_USDT.txt')!;
    const first = txt.text.split('\n')[0]!.trim();
    expect(() => parseAddressLists([{ name: 'sanctioned_addresses_USDT.json', text: JSON.stringify([first]) }, txt])).toThrow(
      'sanctioned_addresses_USDT.txt and .json list different addresses',
    );
  });
});

describe('address-first-seen.csv: dates that are only bounds', () => {
  it('an address only ever seen as "<=date" has no date (BSV 12sjrr…: first in the lists "<=2022-09-03")', () => {
    const firstSeen = parseFirstSeen(readOfac('address-first-seen.csv'));
    expect(firstSeen.get(firstSeenKey('BSV', '12sjrrhoFEsedNRhtgwvvRqjFTh8fZTDX9'))).toEqual({ sdnUids: ['29703'], listedAt: null });
  });

  it('refuses a date in another form, and a file without one of the columns it reads', () => {
    const [header, first] = readOfac('address-first-seen.csv').split('\n');
    expect(first).toContain(',2023-04-24,');
    expect(() => parseFirstSeen(`${header}\n${first!.replace(',2023-04-24,', ',24/04/2023,')}\n`)).toThrow('first-seen file line 2: bad date 24/04/2023');
    expect(() => parseFirstSeen(`${header!.replace('ofac_ent_nums', 'ent_nums')}\n${first}\n`)).toThrow('first-seen file: no column ofac_ent_nums');
  });

  it('refuses a row with more fields than the header, naming its line', () => {
    const [header, first] = readOfac('address-first-seen.csv').split('\n');
    expect(() => parseFirstSeen(`${header}\n${first},extra\n`)).toThrow('first-seen file line 2: 8 fields, expected 7');
  });

  it('a bound on the same day as the earliest exact date leaves the first sighting unknown', () => {
    const header = readOfac('address-first-seen.csv').split('\n')[0]!.trim();
    const text = `${header}\nETH,0x19F8f2B0915Daa12a3f5C9CF01dF9E24D53794F7,48432,2024-05-01,<=2024-05-01,2024-09-27,yes\n`;
    expect(parseFirstSeen(text).get(firstSeenKey('ETH', '0x19F8f2B0915Daa12a3f5C9CF01dF9E24D53794F7'))?.listedAt).toBeNull();
  });
});

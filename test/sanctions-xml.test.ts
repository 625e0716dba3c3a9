// The streaming tag scanner and the sdn_advanced.xml parser, on a hand-written sample in the
// published structure (no real sdn_advanced.xml is available here).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createXmlScanner } from '../pipeline/sanctions/xml-scanner.ts';
import { createSdnAdvancedParser, parseSdnAdvancedXml } from '../pipeline/sanctions/parse-sdn-advanced-xml.ts';

const sample = readFileSync(new URL('./fixtures/sanctions/sdn_advanced-sample.xml', import.meta.url), 'utf8');

function scan(chunks: string[]): string[] {
  const events: string[] = [];
  const scanner = createXmlScanner({
    open: (name, attributes) => events.push(`<${name}${Object.entries(attributes).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).join('')}>`),
    close: (name) => events.push(`</${name}>`),
    text: (text) => events.push(`text ${JSON.stringify(text)}`),
  });
  chunks.forEach((chunk) => scanner.write(chunk));
  scanner.end();
  // Text may arrive in pieces; join neighbours so chunkings compare equal.
  return events.reduce<string[]>((out, e) => {
    const last = out[out.length - 1];
    if (last?.startsWith('text ') && e.startsWith('text ')) out[out.length - 1] = `text ${JSON.stringify(JSON.parse(last.slice(5)) + JSON.parse(e.slice(5)))}`;
    else out.push(e);
    return out;
  }, []);
}

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

describe('xml scanner', () => {
  it('reports elements, attributes, decoded text; skips declaration, comments; keeps CDATA raw', () => {
    const doc =
      '\ufeff<?xml version="1.0"?>\n<!-- a > b --><ns:Root xmlns:ns="u" a=\'1 > 0\' b="&lt;&amp;&#65;&#x42;"><X/>a &amp; b<![CDATA[<raw & text>]]></ns:Root>\n';
    expect(scan([doc])).toEqual(['<Root xmlns:ns="u" a="1 > 0" b="<&AB">', '<X>', '</X>', 'text "a & b<raw & text>"', '</Root>']);
  });

  it('gives the same events for CDATA, comments and a BOM cut at any point, after an empty first chunk', () => {
    const doc = '\ufeff<?xml version="1.0"?>\n<!-- c --><Root><![CDATA[<raw & text>]]><X a="1"/>a &amp; b<!-- d --></Root>\n';
    const whole = scan([doc]);
    for (const size of [1, 2, 3, 5, 8]) expect(scan(['', ...chunked(doc, size)])).toEqual(whole);
  });

  it('gives the same events whatever the chunk boundaries', () => {
    const whole = scan([sample]);
    expect(whole.length).toBeGreaterThan(500);
    for (const size of [1, 2, 3, 7, 64, 4096]) expect(scan(chunked(sample, size))).toEqual(whole);
  });

  it.each([
    ['<a><b></a>', '</a> closes <b>'],
    ['<a><b></b>', 'document ends inside <a>'],
    ['<a></a><b/>', 'a second root element'],
    ['x<a/>', 'text outside the root element'],
    ['<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'DOCTYPE and other declarations are not supported'],
    ['<a>&e;</a>', 'unknown entity &e;'],
    ['<a>fish & chips</a>', 'bare &'],
    ['<a b="1" c></a>', 'malformed attributes in <a>'],
    ['<a><!-- never closed', 'unterminated markup, expected -->'],
    ['<a b="unterminated></a>', 'unterminated tag'],
    ['', 'no root element'],
  ])('refuses %j', (doc, message) => {
    expect(() => scan([doc])).toThrow(message);
  });
});

describe('parseSdnAdvancedXml on the sample', () => {
  const parsed = parseSdnAdvancedXml(sample);

  it('finds every digital currency address, with its profile id as SDN uid and its Created date', () => {
    expect(parsed.partyCount).toBe(9);
    expect(parsed.addresses.map((a) => `${a.sdnUid} ${a.label} ${a.address} ${a.listedAt}`)).toEqual([
      '27307 ETH 0x098B716B8Aaf21512996dC57EB0615e2383E2f96 2019-09-13',
      '27307 ETH 0xa0e1c89Ef1a489c9C7dE96311eD5Ce5D32c20E4B 2019-09-13',
      '33151 XBT 1KUUJPkyDhamZXgpsyXqNGc3x1QPXtdhgz 2021-09-21',
      '33151 USDT 1KUUJPkyDhamZXgpsyXqNGc3x1QPXtdhgz 2021-09-21',
      '33151 ETH 0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535 2021-09-21',
      '38665 XBT bc1ql7dlyh8xz6tpqk92vztrhqh88dmjvcwrmsemrm 2022-09-15',
      '38665 USDT TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqG 2022-09-15',
      '42498 ETH 0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c 2023-04-24',
      '42498 ARB 0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c 2023-04-24',
      '42498 BSC 0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c 2023-04-24',
      '45404 XBT 1MLPqwaFFUBZePTjpR3nxRoK19Cv9mPCc7 2023-10-03',
      '45404 XBT TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq 2023-10-03',
      '45404 USDT 0xfac583c0cf07ea434052c49115a4682172ab6b4f 2023-10-03',
      '47635 USDT 0x175d44451403Edf28469dF03A9280c1197ADb92c 2024-03-27',
      '900001 SOL 42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi null',
    ]);
    expect(parsed.warnings).toEqual(['profile 900001: designation date {"Year":"2025","Month":"6"} is not a full date']);
  });

  it('resolves types by label: feature 345 (Website) and 344 (Vessel Flag) are not addresses here', () => {
    expect(parsed.addresses.some((a) => a.address === 'suex.io')).toBe(false);
    // Renumbering every reference id changes nothing.
    const renumbered = sample.replace(/\b(FeatureTypeID|ID)="(9\d{4}|8|344|345)"/g, (_m, attr: string, id: string) => `${attr}="${Number(id) * 3 + 11}"`);
    expect(renumbered).not.toEqual(sample);
    expect(parseSdnAdvancedXml(renumbered).addresses).toEqual(parsed.addresses);
  });

  it('parses the same in chunks', () => {
    const parser = createSdnAdvancedParser();
    chunked(sample, 333).forEach((c) => parser.write(c));
    expect(parser.end()).toEqual(parsed);
  });

  it('fails on a document cut short, however far it got', () => {
    for (const fraction of [0.2, 0.5, 0.9, 0.999]) {
      expect(() => parseSdnAdvancedXml(sample.slice(0, Math.floor(sample.length * fraction)))).toThrow(/document ends inside|unterminated/);
    }
  });

  it.each([
    ['no "Created" event type', sample.replace('>Created<', '>Listed<'), 'no "Created" entry event type'],
    ['no address feature types', sample.replaceAll('Digital Currency Address - ', 'Crypto '), 'no "Digital Currency Address - …" feature type'],
    ['an undefined feature type', sample.replace('FeatureTypeID="91345"', 'FeatureTypeID="5"'), 'FeatureTypeID 5, which FeatureTypeValues does not define'],
    ['an undefined event type', sample.replace('EntryEventTypeID="7"', 'EntryEventTypeID="9"'), 'EntryEventTypeID 9, which EntryEventTypeValues does not define'],
    [
      'parties before the reference values',
      sample.replace(/(<ReferenceValueSets>[\s\S]*<\/ReferenceValueSets>)([\s\S]*<\/DistinctParties>)/, '$2$1'),
      'DistinctParties before ReferenceValueSets',
    ],
    [
      'an address feature outside a Profile',
      sample.replace('</Profile>\n    </DistinctParty>\n    <DistinctParty FixedRef="33151">', '</Profile>\n      <Feature ID="1" FeatureTypeID="91345"/>\n    </DistinctParty>\n    <DistinctParty FixedRef="33151">'),
      'feature outside DistinctParty/Profile',
    ],
    ['markup inside an address', sample.replace('>1MLPqwaFFU', '>1MLPqwa<b/>FFU'), '<b> inside <VersionDetail>'],
  ])('refuses %s', (_name, doc, message) => {
    expect(doc).not.toEqual(sample);
    expect(() => parseSdnAdvancedXml(doc)).toThrow(message);
  });
});

describe('parseSdnAdvancedXml on variants of the sample', () => {
  // Profile 47635 (GAZA NOW) has one USDT feature with one FeatureVersion, designated 2024-03-27.
  const usdt = '0x175d44451403Edf28469dF03A9280c1197ADb92c';
  const detail = `<VersionDetail DetailTypeID="1432">${usdt}</VersionDetail>`;
  const created = '<Year>2024</Year>\n          <Month>3</Month>\n          <Day>27</Day>';
  const variant = (from: string, to: string) => {
    expect(sample.split(from)).toHaveLength(2);
    return parseSdnAdvancedXml(sample.replace(from, to));
  };
  const of47635 = (parsed: { addresses: { sdnUid: string; label: string; address: string; listedAt: string | null }[] }) =>
    parsed.addresses.filter((a) => a.sdnUid === '47635').map((a) => `${a.label} ${a.address} ${a.listedAt}`);

  it('takes the address of every FeatureVersion of a feature, not only the first', () => {
    // A real USDT address (Tron form) of the 2024-09-27 lists, as a second version of the feature.
    const second = 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqG';
    const parsed = variant(
      `${detail}\n          </FeatureVersion>`,
      `${detail}\n          </FeatureVersion>\n          <FeatureVersion ID="65102" ReliabilityID="1"><VersionDetail DetailTypeID="1432">${second}</VersionDetail></FeatureVersion>`,
    );
    expect(of47635(parsed)).toEqual([`USDT ${usdt} 2024-03-27`, `USDT ${second} 2024-03-27`]);
  });

  it('an address feature with an empty value is a warning, never an empty address', () => {
    const parsed = variant(detail, '<VersionDetail DetailTypeID="1432">  </VersionDetail>');
    expect(of47635(parsed)).toEqual([]);
    expect(parsed.addresses.every((a) => a.address !== '')).toBe(true);
    expect(parsed.warnings).toContain('profile 47635: a USDT address feature without a value');
  });

  it('joins the text of an address that a comment splits', () => {
    const parsed = variant(detail, `<VersionDetail DetailTypeID="1432">${usdt.slice(0, 20)}<!-- split -->${usdt.slice(20)}</VersionDetail>`);
    expect(of47635(parsed)).toEqual([`USDT ${usdt} 2024-03-27`]);
  });

  it('trims white space around the address in VersionDetail', () => {
    const parsed = variant(detail, `<VersionDetail DetailTypeID="1432">\n   ${usdt} \t\n</VersionDetail>`);
    expect(of47635(parsed)).toEqual([`USDT ${usdt} 2024-03-27`]);
  });

  it('a Created date that does not exist (30 February) is no date, with a warning', () => {
    const parsed = variant(created, '<Year>2024</Year>\n          <Month>2</Month>\n          <Day>30</Day>');
    expect(of47635(parsed)).toEqual([`USDT ${usdt} null`]);
    expect(parsed.warnings).toContain('profile 47635: designation date {"Year":"2024","Month":"2","Day":"30"} is not a full date');
  });

  it('of two Created events of an entry, the earlier date is the designation date', () => {
    const parsed = variant(
      `${created}\n        </Date>\n        <Comment />\n      </EntryEvent>`,
      `${created}\n        </Date>\n        <Comment />\n      </EntryEvent>\n      <EntryEvent ID="47699" EntryEventTypeID="7" LegalBasisID="1"><Date CalendarTypeID="1"><Year>2020</Year><Month>1</Month><Day>2</Day></Date></EntryEvent>`,
    );
    expect(of47635(parsed)).toEqual([`USDT ${usdt} 2020-01-02`]);
  });

  it('dates a profile by the ProfileID of its SanctionsEntry, not by the ID of the entry', () => {
    const parsed = variant('<SanctionsEntry ID="47635" ProfileID="47635"', '<SanctionsEntry ID="1047635" ProfileID="47635"');
    expect(of47635(parsed)).toEqual([`USDT ${usdt} 2024-03-27`]);
  });

  it('reads a document that starts with a byte order mark', () => {
    expect(parseSdnAdvancedXml(`\ufeff${sample}`)).toEqual(parseSdnAdvancedXml(sample));
  });
});

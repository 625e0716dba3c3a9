// SANCTIONS_LIST_SOURCE: which reader a setting names, and the companion files found beside it.
import { describe, expect, it } from 'vitest';
import { sanctionsSourceFromSetting, SanctionsSourceError } from '../pipeline/sanctions/source-setting.ts';
import { addressListsDir, ofacPath } from './helpers/ofac-data.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('sanctionsSourceFromSetting', () => {
  it('an sdn.csv with sdn_comments.csv beside it reads both, so cut remarks are completed', () => {
    expect(sanctionsSourceFromSetting(ofacPath('sdn-tiny/sdn.csv'))).toEqual({
      kind: 'sdn-csv',
      sdnFile: ofacPath('sdn-tiny/sdn.csv'),
      commentsFile: ofacPath('sdn-tiny/sdn_comments.csv'),
    });
    // No sdn_comments.csv beside the 2024 file.
    expect(sanctionsSourceFromSetting(ofacPath('sdn-2024-05-03.csv'))).toEqual({ kind: 'sdn-csv', sdnFile: ofacPath('sdn-2024-05-03.csv') });
  });

  it('a folder of address lists takes address-first-seen.csv from the folder above', () => {
    expect(sanctionsSourceFromSetting(addressListsDir)).toEqual({
      kind: 'address-lists',
      dir: addressListsDir,
      firstSeenFile: ofacPath('address-first-seen.csv'),
    });
    // A folder with no first-seen file above it.
    const lone = tempDataDir('sanctions-lists-alone');
    expect(sanctionsSourceFromSetting(lone)).toEqual({ kind: 'address-lists', dir: lone });
  });

  it('an .xml is sdn_advanced.xml; a URL is never looked for companions; anything else is refused', () => {
    expect(sanctionsSourceFromSetting('https://example.org/sdn_advanced.XML?x=1')).toEqual({ kind: 'sdn-advanced-xml', file: 'https://example.org/sdn_advanced.XML?x=1' });
    expect(sanctionsSourceFromSetting('https://example.org/sdn.csv')).toEqual({ kind: 'sdn-csv', sdnFile: 'https://example.org/sdn.csv' });
    expect(() => sanctionsSourceFromSetting(ofacPath('no-such-folder'))).toThrow(SanctionsSourceError);
  });
});

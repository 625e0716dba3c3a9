// createSanctionsLookup on a real store loaded with the sample XML and the real 2024 SDN CSV.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { silentLogger } from '../pipeline/log.ts';
import { refreshSanctionsList } from '../pipeline/sanctions/load.ts';
import { createSanctionsLookup } from '../pipeline/sanctions/lookup.ts';
import { familyOfListed } from '../pipeline/sanctions/address-family.ts';
import { parseAddressLists } from '../pipeline/sanctions/parse-address-lists.ts';
import { addressListFiles, addressListsDir, ofacPath } from './helpers/ofac-data.ts';
import { tempDataDir } from './helpers/temp.ts';
import { blockStore } from './helpers/block-store.ts';

const samplePath = new URL('./fixtures/sanctions/sdn_advanced-sample.xml', import.meta.url).pathname;
const recheckMs = 5_000;

let store: Store;
let clock = Date.now();
const now = () => clock;
const later = () => (clock += recheckMs + 1);

beforeAll(async () => {
  store = await openStore({ dataDir: tempDataDir('sanctions-lookup') });
});
afterAll(async () => {
  await store.close();
});

// The tests load unrelated lists one after another, most of them shorter than the one before.
const loadSample = () => refreshSanctionsList({ store, log: silentLogger }, { kind: 'sdn-advanced-xml', file: samplePath }, { allowShrink: true });

describe('createSanctionsLookup', () => {
  it('is unavailable, never clear, before any list was loaded', async () => {
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    const result = await lookup.check('0x098B716B8Aaf21512996dC57EB0615e2383E2f96', 'evm');
    expect(result).toEqual({ status: 'unavailable', reason: 'no sanctions list has been loaded' });
    expect(result).not.toHaveProperty('sanctioned');
    expect(await lookup.freshness()).toBeNull();
  });

  it('answers hits and misses from the loaded list, EVM in any case, others verbatim', async () => {
    await loadSample();
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    const lazarus = { status: 'listed', sanctioned: true, ofac_label: 'ETH', sdn_uid: '27307', listed_at: '2019-09-13' };
    expect(await lookup.check('0x098B716B8Aaf21512996dC57EB0615e2383E2f96', 'evm')).toEqual(lazarus);
    expect(await lookup.check('0x098b716b8aaf21512996dc57eb0615e2383e2f96', 'evm')).toEqual(lazarus);
    expect(await lookup.check('0x098B716B8AAF21512996DC57EB0615E2383E2F96', 'evm')).toEqual(lazarus);
    expect(await lookup.check('0x098B716B8Aaf21512996dC57EB0615e2383E2f97', 'evm')).toEqual({ status: 'clear' });

    // Listed under XBT, but a Tron address: found under tron, not bitcoin.
    expect(await lookup.check('TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', 'tron')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'XBT', sdn_uid: '45404', listed_at: '2023-10-03' });
    expect(await lookup.check('TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', 'bitcoin')).toEqual({ status: 'clear' });

    // Solana keys are case-sensitive; a listing without a full designation date has listed_at null.
    expect(await lookup.check('42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi', 'solana')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'SOL', sdn_uid: '900001', listed_at: null });
    expect(await lookup.check('42rlpacwzpx3vyymxsueqsogfynbdqxk298edsnoyohi', 'solana')).toEqual({ status: 'clear' });

    // One address under three labels answers with one listing, the same every time.
    expect(await lookup.check('0x4F47BC496083C727C5FBE3CE9CDF2B0F6496270C', 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'ARB', sdn_uid: '42498', listed_at: '2023-04-24' });
  });

  it('rejects a family it does not know instead of calling it clear', async () => {
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    await expect(lookup.check('0x098B716B8Aaf21512996dC57EB0615e2383E2f96', 'ethereum' as 'evm')).rejects.toThrow('unknown address family "ethereum"');
  });

  it('picks up a newer load after at most recheckMs, and not before', async () => {
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    const csvOnly = '0xa7e5d5a720f06526557c513402f2e6b5fa20b008'; // entry 29702, not in the sample
    expect(await lookup.check(csvOnly, 'evm')).toEqual({ status: 'clear' });

    await refreshSanctionsList({ store, log: silentLogger }, { kind: 'sdn-csv', sdnFile: ofacPath('sdn-2024-05-03.csv') }, { allowShrink: true });
    expect(await lookup.check(csvOnly, 'evm')).toEqual({ status: 'clear' });
    later();
    expect(await lookup.check(csvOnly, 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'ETH', sdn_uid: '29702', listed_at: null });
    expect(await lookup.check('42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi', 'solana')).toEqual({ status: 'clear' });
    // Real 2024 listings: USDT in Tron form, an ETC address.
    expect(await lookup.check('TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqG', 'tron')).toMatchObject({ status: 'listed', ofac_label: 'USDT', sdn_uid: '38665' });
    expect(await lookup.check('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm')).toMatchObject({ status: 'listed', sdn_uid: '29585' });
  });

  it('reports freshness: when the list in use was loaded and last confirmed, and its age since', async () => {
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    const fresh = await lookup.freshness();
    expect(fresh?.loadedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    clock = Date.parse(fresh!.checkedAt) + 90_000;
    expect(await lookup.freshness()).toEqual({ loadedAt: fresh!.loadedAt, checkedAt: fresh!.checkedAt, ageSeconds: 90 });
  });

  it('a refresh that finds the list unchanged confirms it current: the age starts again, the list stays', async () => {
    const lookup = createSanctionsLookup(store, { recheckMs, now });
    const before = (await lookup.freshness())!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const refreshed = await refreshSanctionsList({ store, log: silentLogger }, { kind: 'sdn-csv', sdnFile: ofacPath('sdn-2024-05-03.csv') });
    expect(refreshed.changed).toBe(false);
    later();
    const after = (await lookup.freshness())!;
    expect(after.loadedAt).toBe(before.loadedAt);
    expect(Date.parse(after.checkedAt)).toBeGreaterThan(Date.parse(before.checkedAt));
  });

  it('reads the store once for concurrent checks', async () => {
    let reads = 0;
    const counting: Store = { ...store, withReadConnection: (fn) => (reads++, store.withReadConnection(fn)) };
    const lookup = createSanctionsLookup(counting, { recheckMs, now });
    const results = await Promise.all(Array.from({ length: 20 }, () => lookup.check('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm')));
    expect(results.every((r) => r.status === 'listed')).toBe(true);
    expect(reads).toBe(1);
  });

  it('is unavailable when the store cannot be read, also after an earlier success, and recovers', async () => {
    let broken = false;
    const flaky: Store = {
      ...store,
      withReadConnection: (fn) => (broken ? Promise.reject(new Error('database is gone')) : store.withReadConnection(fn)),
    };
    const lookup = createSanctionsLookup(flaky, { recheckMs, now });
    expect((await lookup.check('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm')).status).toBe('listed');

    broken = true;
    later();
    expect(await lookup.check('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm')).toEqual({
      status: 'unavailable',
      reason: 'the sanctions list could not be read: database is gone',
    });
    expect(await lookup.check('0x0000000000000000000000000000000000000001', 'evm')).toMatchObject({ status: 'unavailable' });
    await expect(lookup.freshness()).rejects.toThrow('database is gone');

    broken = false;
    expect((await lookup.check('0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm')).status).toBe('listed');
  });
});

describe('createSanctionsLookup on the 0xB10C lists with first-seen dates', () => {
  const own = blockStore('sanctions-lookup-lists');
  let t = Date.now();
  const ownNow = () => t;
  const listsSource = { kind: 'address-lists', dir: addressListsDir, firstSeenFile: ofacPath('address-first-seen.csv') } as const;

  it('an address under several labels reports its earliest dated listing; undated ones come last', async () => {
    await refreshSanctionsList({ store: own(), log: silentLogger }, listsSource, { allowShrink: true });
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    // Entry 33151 lists this EVM address under ETH (no known first sighting) and USDT (first seen 2023-05-19).
    expect(await lookup.check('0x19aa5fe80d33a56d56c78e82ea5e50e5d80b4dff', 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'USDT', sdn_uid: '33151', listed_at: '2023-05-19' });
    // And this Bitcoin address under XBT (2021-09-21) and USDT (2023-05-19): the earlier one.
    expect(await lookup.check('1KUUJPkyDhamZXgpsyXqNGc3x1QPXtdhgz', 'bitcoin')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'XBT', sdn_uid: '33151', listed_at: '2021-09-21' });
  });

  it('finds every address of the lists as published, and case-insensitive forms in upper case', async () => {
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    const upper = (family: string, address: string): string | null => {
      if (family === 'evm') return `0x${address.slice(2).toUpperCase()}`;
      if ((family === 'bitcoin' && /^bc1/i.test(address)) || (family === 'litecoin' && /^ltc1/i.test(address))) return address.toUpperCase();
      if (family === 'bitcoin-cash' && /^[qp]/.test(address)) return `BITCOINCASH:${address.toUpperCase()}`;
      return null;
    };
    const missed: string[] = [];
    let spellings = 0;
    for (const { label, address } of parseAddressLists(addressListFiles())) {
      const { family } = familyOfListed(label, address);
      for (const spelling of [address, upper(family, address)]) {
        if (spelling === null) continue;
        spellings++;
        if ((await lookup.check(spelling, family)).status !== 'listed') missed.push(`${label} ${family} ${spelling}`);
      }
    }
    expect(missed).toEqual([]);
    expect(spellings).toBeGreaterThan(654 + 150);
  });

  it('finds a listed CashAddr in upper case and with its bitcoincash: prefix', async () => {
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    const listed = await lookup.check('qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq', 'bitcoin-cash');
    expect(listed).toMatchObject({ status: 'listed', ofac_label: 'BCH' });
    expect(await lookup.check('BITCOINCASH:QPF2CPHC5DKUCLKQUR7LHJ2YUQQ9PK3HMUKLE77VHQ', 'bitcoin-cash')).toEqual(listed);
    expect(await lookup.check('bitcoincash:qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq', 'bitcoin-cash')).toEqual(listed);
  });

  it('finds Bitcoin Cash and Litecoin listings under the other spelling of the same address', async () => {
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    // The other spellings of real listings, made with bchaddrjs 0.5.2 (CashAddr) and by swapping
    // Litecoin's P2SH version byte 0x32 for 0x05 (base58check).
    const legacyListed = await lookup.check('18M8bJWMzWHDBMxoLqjHHAffdRy4SrzkfB', 'bitcoin-cash');
    expect(legacyListed).toMatchObject({ status: 'listed', ofac_label: 'BCH' });
    expect(await lookup.check('bitcoincash:qpgf0ztxq3mwfq6eg5versgfdzq9c3pwv5jsk6wnay', 'bitcoin-cash')).toEqual(legacyListed);
    const cashAddrListed = await lookup.check('qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq', 'bitcoin-cash');
    expect(await lookup.check('18Y8VPic2pZsvyLaYVdSLQdCuT2nAJJ3hd', 'bitcoin-cash')).toEqual(cashAddrListed);
    const litecoin = await lookup.check('M8yFL6SFC6TreATegTyuSYkDfDRbisdpT3', 'litecoin');
    expect(litecoin).toMatchObject({ status: 'listed', ofac_label: 'LTC' });
    expect(await lookup.check('32m72D2HEycRqfBkaazZcuVpLWq9k3sYdt', 'litecoin')).toEqual(litecoin);
    // The same spellings on another chain are other addresses.
    expect(await lookup.check('32m72D2HEycRqfBkaazZcuVpLWq9k3sYdt', 'bitcoin')).toEqual({ status: 'clear' });
    expect(await lookup.check('18Y8VPic2pZsvyLaYVdSLQdCuT2nAJJ3hd', 'bitcoin')).toEqual({ status: 'clear' });
  });

  it('asks the store again once exactly recheckMs have passed', async () => {
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    const sampleOnly = '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi'; // in the sample XML, not in the 2024-09-27 lists
    expect(await lookup.check(sampleOnly, 'solana')).toEqual({ status: 'clear' });
    await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'sdn-advanced-xml', file: samplePath }, { allowShrink: true });
    t += recheckMs - 1;
    expect(await lookup.check(sampleOnly, 'solana')).toEqual({ status: 'clear' });
    t += 1;
    expect(await lookup.check(sampleOnly, 'solana')).toMatchObject({ status: 'listed', sdn_uid: '900001' });
  });

  it('reports an age of 0, never a negative one, when the clock is behind the load time', async () => {
    const lookup = createSanctionsLookup(own(), { recheckMs, now: ownNow });
    const fresh = await lookup.freshness();
    t = Date.parse(fresh!.checkedAt) - 60_000;
    expect(await lookup.freshness()).toEqual({ loadedAt: fresh!.loadedAt, checkedAt: fresh!.checkedAt, ageSeconds: 0 });
  });
});

describe('createSanctionsLookup: which listing a shared address reports', () => {
  const own = blockStore('sanctions-lookup-ties');

  it('on the same designation date, the lowest entry id wins before the label', async () => {
    // Variant of the sample: entry 27307 (ETH) also lists 0x4f47…270c, which entry 42498 lists under
    // ARB, BSC and ETH, and both are designated on 2023-04-24.
    const sample = readFileSync(samplePath, 'utf8');
    const variant = sample
      .replace('0xa0e1c89Ef1a489c9C7dE96311eD5Ce5D32c20E4B', '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c')
      .replace('<Year>2019</Year>\n          <Month>9</Month>\n          <Day>13</Day>', '<Year>2023</Year>\n          <Month>4</Month>\n          <Day>24</Day>');
    expect(variant.match(/0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c/g)).toHaveLength(4);
    expect(variant).not.toContain('<Year>2019</Year>');
    const file = path.join(tempDataDir('sanctions-lookup-ties-files'), 'sdn_advanced.xml');
    writeFileSync(file, variant);
    await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'sdn-advanced-xml', file }, { allowShrink: true });
    const lookup = createSanctionsLookup(own(), { recheckMs });
    expect(await lookup.check('0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'ETH', sdn_uid: '27307', listed_at: '2023-04-24' });

    // Entry ids compare as numbers: as entry 127307, the same entry loses to 42498 (as text it would win).
    writeFileSync(file, variant.replaceAll('27307', '127307'));
    await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'sdn-advanced-xml', file });
    const renumbered = createSanctionsLookup(own(), { recheckMs });
    expect(await renumbered.check('0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'ARB', sdn_uid: '42498', listed_at: '2023-04-24' });
  });

  it('a listing that names its entry wins over one that names none', async () => {
    // The real ETH list, and 0xd882…344b (entry 29585 under ETC and ETH, no known first sighting)
    // also under USDC, which the first-seen file does not know: that row has no entry id and no date.
    const dir = path.join(tempDataDir('sanctions-lookup-ties-lists'), 'lists');
    mkdirSync(dir);
    copyFileSync(path.join(addressListsDir, 'sanctioned_addresses_ETH.txt'), path.join(dir, 'sanctioned_addresses_ETH.txt'));
    writeFileSync(path.join(dir, 'sanctioned_addresses_USDC.txt'), '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b\n');
    await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'address-lists', dir, firstSeenFile: ofacPath('address-first-seen.csv') }, { allowShrink: true });
    expect(await own().read("SELECT ofac_label, sdn_uid FROM sanctioned_addresses WHERE address = '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b' ORDER BY ALL")).toEqual([
      { ofac_label: 'ETH', sdn_uid: '29585' },
      { ofac_label: 'USDC', sdn_uid: '' },
    ]);
    const lookup = createSanctionsLookup(own(), { recheckMs });
    expect(await lookup.check('0xD882CFC20F52F2599D84B8E8D58C7FB62CFE344B', 'evm')).toEqual({ status: 'listed', sanctioned: true, ofac_label: 'ETH', sdn_uid: '29585', listed_at: null });
  });

  it('an address listed in two spellings reports the earliest listing of either, not the one that sorts first', async () => {
    // The CashAddr specification's pair for one P2PKH hash: the legacy spelling (entry 200, seen
    // 2023) sorts before the CashAddr one (entry 100, seen 2021), which is the earlier listing.
    const files = tempDataDir('sanctions-lookup-ties-spellings');
    const dir = path.join(files, 'lists');
    mkdirSync(dir);
    const [legacy, cashAddr] = ['1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'];
    writeFileSync(path.join(dir, 'sanctioned_addresses_BCH.txt'), `${legacy}\n${cashAddr}\n`);
    const firstSeen = path.join(files, 'first-seen.csv');
    const header = 'currency,address,ofac_ent_nums,first_seen_in_sdn_csv_scrape,first_seen_in_0xB10C_lists,last_seen_in_0xB10C_lists,in_0xB10C_lists_2024_09_27';
    writeFileSync(firstSeen, `${header}\nBCH,${legacy},200,2023-05-19,2023-05-19,2024-09-27,yes\nBCH,${cashAddr},100,2021-01-04,2021-01-04,2024-09-27,yes\n`);
    await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'address-lists', dir, firstSeenFile: firstSeen }, { allowShrink: true });
    const lookup = createSanctionsLookup(own(), { recheckMs });
    const earliest = { status: 'listed', sanctioned: true, ofac_label: 'BCH', sdn_uid: '100', listed_at: '2021-01-04' };
    expect(await lookup.check(legacy, 'bitcoin-cash')).toEqual(earliest);
    expect(await lookup.check(`bitcoincash:${cashAddr}`, 'bitcoin-cash')).toEqual(earliest);
  });
});

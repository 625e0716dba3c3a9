// refreshSanctionsList against a real DuckDB store: whole replacement in one transaction, no-op on
// unchanged input, failures that leave the previous list, and sources fetched over (loopback) HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { createLogger, silentLogger } from '../pipeline/log.ts';
import { ListShrinkError, refreshSanctionsList, type RefreshOptions, type SanctionsSource } from '../pipeline/sanctions/load.ts';
import { JobInputError, runHandler } from '../jobs/handlers.ts';
import { loadConfig } from '../pipeline/config.ts';
import { addressListsDir, ofacPath } from './helpers/ofac-data.ts';
import { tempDataDir } from './helpers/temp.ts';
import { blockStore } from './helpers/block-store.ts';

const samplePath = new URL('./fixtures/sanctions/sdn_advanced-sample.xml', import.meta.url).pathname;
const sdn2024 = ofacPath('sdn-2024-05-03.csv');
const firstSeen = ofacPath('address-first-seen.csv');
const work = tempDataDir('sanctions-files');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let store: Store;
beforeAll(async () => {
  store = await openStore({ dataDir: tempDataDir('sanctions-load') });
});
afterAll(async () => {
  await store.close();
});

// These tests go from one unrelated list to another, most of them shorter: the refusal of a sharp
// drop has its own block below.
const refresh = (source: SanctionsSource, options?: RefreshOptions) =>
  refreshSanctionsList({ store, log: silentLogger }, source, { allowShrink: true, ...options });
const table = () => store.read(`SELECT family, address, ofac_label, sdn_uid, strftime(listed_at, '%Y-%m-%d') AS listed_at FROM sanctioned_addresses ORDER BY ALL`);
const loads = () => store.read('SELECT source, source_sha256, address_count, entry_count FROM sanctions_list_loads ORDER BY loaded_at');

describe('refreshSanctionsList', () => {
  it('loads the legacy CSV: families, normalised EVM addresses, one load row; logs the cut remarks', async () => {
    const logged: string[] = [];
    const result = await refreshSanctionsList({ store, log: createLogger('test', (line) => logged.push(line)) }, { kind: 'sdn-csv', sdnFile: sdn2024 });
    expect(result).toEqual({ changed: true, addressCount: 280, entryCount: 55, sha256: sha256(sdn2024) });
    const rows = await table();
    expect(rows).toHaveLength(288);
    expect(rows).toContainEqual({ family: 'evm', address: '0x098b716b8aaf21512996dc57eb0615e2383e2f96', ofac_label: 'ETH', sdn_uid: '27307', listed_at: null });
    expect(rows).toContainEqual({ family: 'tron', address: 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', ofac_label: 'XBT', sdn_uid: '45404', listed_at: null });
    expect(await loads()).toEqual([{ source: sdn2024, source_sha256: sha256(sdn2024), address_count: 280, entry_count: 55 }]);
    const warning = logged.find((line) => line.includes(' warn test:sanctions sanctions source has defects'));
    expect(warning).toContain('entry 30518: remarks cut at 1,000 characters without a continuation, dropped \\"alt. Digital Currency Address - XBT 1Gq\\"');
    expect(logged.some((line) => line.includes(' info test:sanctions sanctions list replaced'))).toBe(true);
  });

  it('does nothing when the content is unchanged, even from another path', async () => {
    const copy = path.join(work, 'sdn-copy.csv');
    copyFileSync(sdn2024, copy);
    const before = await table();
    expect(await refresh({ kind: 'sdn-csv', sdnFile: copy })).toEqual({ changed: false, addressCount: 280, entryCount: 55, sha256: sha256(sdn2024) });
    expect(await table()).toEqual(before);
    expect(await loads()).toHaveLength(1);
  });

  it('replaces the list whole with the XML sample, with designation dates', async () => {
    const result = await refresh({ kind: 'sdn-advanced-xml', file: samplePath });
    expect(result).toEqual({ changed: true, addressCount: 12, entryCount: 7, sha256: sha256(samplePath) });
    const rows = await table();
    expect(rows).toHaveLength(15);
    expect(rows.filter((r) => r.sdn_uid === '29702')).toEqual([]); // a CSV-only entry is gone
    expect(rows).toContainEqual({ family: 'evm', address: '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', ofac_label: 'ARB', sdn_uid: '42498', listed_at: '2023-04-24' });
    expect(rows).toContainEqual({ family: 'solana', address: '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi', ofac_label: 'SOL', sdn_uid: '900001', listed_at: null });
    expect(await loads()).toHaveLength(2);
  });

  it('a source that fails to parse halfway leaves the previous list', async () => {
    const before = await table();
    const truncatedXml = path.join(work, 'truncated.xml');
    const sample = readFileSync(samplePath, 'utf8');
    writeFileSync(truncatedXml, sample.slice(0, sample.indexOf('<SanctionsEntry ID="42498"')));
    await expect(refresh({ kind: 'sdn-advanced-xml', file: truncatedXml })).rejects.toThrow('document ends inside <SanctionsEntries>');

    // Row 7,000 of the CSV is damaged: the parse stops there.
    const lines = readFileSync(sdn2024, 'latin1').split('\r\n');
    lines[6999] = lines[6999]!.slice(0, lines[6999]!.lastIndexOf(','));
    const brokenCsv = path.join(work, 'broken.csv');
    writeFileSync(brokenCsv, lines.join('\r\n'), 'latin1');
    await expect(refresh({ kind: 'sdn-csv', sdnFile: brokenCsv })).rejects.toThrow(/^sdn\.csv line 7000: /);

    expect(await table()).toEqual(before);
    expect(await loads()).toHaveLength(2);
  });

  it('a failure inside the transaction rolls back the delete and the appends', async () => {
    const before = await table();
    const failingAtCommit: Store = {
      ...store,
      write: (unit) =>
        store.write(async (tx) => {
          await unit(tx);
          throw new Error('disk full');
        }),
    };
    await expect(
      refreshSanctionsList({ store: failingAtCommit, log: silentLogger }, { kind: 'sdn-csv', sdnFile: sdn2024 }, { allowShrink: true }),
    ).rejects.toThrow('disk full');
    expect(await table()).toEqual(before);
    expect(await loads()).toHaveLength(2);
  });

  it('refuses a source with no addresses rather than emptying the list', async () => {
    const noAddresses = path.join(work, 'no-addresses.csv');
    writeFileSync(noAddresses, '36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a');
    await expect(refresh({ kind: 'sdn-csv', sdnFile: noAddresses })).rejects.toThrow('no digital currency addresses found; keeping the previous list');
    expect(await loads()).toHaveLength(2);
  });

  it('address lists take entry ids and first-seen dates from the first-seen file when given', async () => {
    const result = await refresh({ kind: 'address-lists', dir: addressListsDir, firstSeenFile: firstSeen });
    expect(result.changed).toBe(true);
    expect(result.addressCount).toBe(641);
    const rows = await table();
    expect(rows).toContainEqual({ family: 'evm', address: '0x19f8f2b0915daa12a3f5c9cf01df9e24d53794f7', ofac_label: 'ETH', sdn_uid: '48432', listed_at: '2024-05-01' });
    // Two entries list this address: one row each.
    expect(rows.filter((r) => r.address === '0x22aaa7720ddd5388a3c0a3333430953c68f1849b').map((r) => r.sdn_uid)).toEqual(['38499', '39796']);
    // Without an entry id in either source, the row says so with ''.
    expect(rows).toContainEqual({ family: 'evm', address: '0x01e2919679362dfbc9ee1644ba9c6da6d6245bb1', ofac_label: 'ETH', sdn_uid: '', listed_at: '2022-11-09' });
    expect((await loads()).at(-1)?.source).toBe(`${addressListsDir} + ${firstSeen}`);
  });

  it('the legacy CSV takes first-seen dates when given, and that counts as a change', async () => {
    const result = await refresh({ kind: 'sdn-csv', sdnFile: sdn2024, firstSeenFile: firstSeen });
    expect(result.changed).toBe(true);
    expect(result.sha256).not.toBe(sha256(sdn2024));
    const rows = await table();
    expect(rows).toContainEqual({ family: 'evm', address: '0x098b716b8aaf21512996dc57eb0615e2383e2f96', ofac_label: 'ETH', sdn_uid: '27307', listed_at: '2022-04-14' });
    // Base58 addresses are matched verbatim (case matters): XBT 12HQ… first seen in the scrape on 2021-09-21.
    expect(rows).toContainEqual({ family: 'bitcoin', address: '12HQDsicffSBaYdJ6BhnE22sfjTESmmzKx', ofac_label: 'XBT', sdn_uid: '33151', listed_at: '2021-09-21' });
  });
});

describe('refreshSanctionsList from a URL', () => {
  let server: Server;
  let base: string;
  const sample = readFileSync(samplePath);
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/sdn_advanced.xml') return void res.end(sample);
      if (url.pathname === '/chunked.xml') {
        // No Content-Length: the cap has to hold while streaming.
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.write(sample.subarray(0, 2000));
        return void res.end(sample.subarray(2000));
      }
      if (url.pathname === '/moved.xml') return void res.writeHead(302, { location: '/sdn_advanced.xml' }).end();
      if (url.pathname === '/to-ftp.xml') return void res.writeHead(301, { location: 'ftp://127.0.0.1/sdn_advanced.xml' }).end();
      if (url.pathname === '/loop.xml') return void res.writeHead(302, { location: '/loop.xml' }).end();
      const hops = /^\/hops\/(\d+)\.xml$/.exec(url.pathname);
      if (hops) {
        const left = Number(hops[1]) - 1;
        return void res.writeHead(302, { location: left === 0 ? '/sdn_advanced.xml' : `/hops/${left}.xml` }).end();
      }
      if (url.pathname === '/stalls.xml') {
        res.writeHead(200);
        return void res.write('<Sanctions>');
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches, hashes and loads; the recorded source drops the query string', async () => {
    const result = await refresh({ kind: 'sdn-advanced-xml', file: `${base}/sdn_advanced.xml?token=secret` });
    expect(result).toEqual({ changed: true, addressCount: 12, entryCount: 7, sha256: sha256(samplePath) });
    const [last] = (await loads()).slice(-1);
    expect(last?.source).toBe(`${base}/sdn_advanced.xml`);
  });

  it('enforces the size limit, declared or streamed', async () => {
    const limits = { limits: { timeoutMs: 5_000, maxBytes: 4_000 } };
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/sdn_advanced.xml` }, limits)).rejects.toThrow(/larger than 4000 bytes \(Content-Length \d+\)/);
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/chunked.xml` }, limits)).rejects.toThrow('chunked.xml: larger than 4000 bytes');
  });

  it('gives up after the timeout, and on HTTP errors', async () => {
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/stalls.xml` }, { limits: { timeoutMs: 300, maxBytes: 1e6 } })).rejects.toThrow(
      'stalls.xml: no complete answer within 300 ms',
    );
    await expect(refresh({ kind: 'sdn-csv', sdnFile: `${base}/missing.csv` })).rejects.toThrow('missing.csv: HTTP 404');
  });

  it('follows redirects hop by hop, checking each before requesting it', async () => {
    const moved = await refresh({ kind: 'sdn-advanced-xml', file: `${base}/moved.xml` });
    expect(moved.addressCount).toBe(12);
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/to-ftp.xml` })).rejects.toThrow('only https URLs are fetched (http only from loopback), not ftp://127.0.0.1');
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/loop.xml` })).rejects.toThrow('more than 5 redirects');
    // Five redirects are followed; a sixth is refused.
    expect((await refresh({ kind: 'sdn-advanced-xml', file: `${base}/hops/5.xml` })).addressCount).toBe(12);
    await expect(refresh({ kind: 'sdn-advanced-xml', file: `${base}/hops/6.xml` })).rejects.toThrow('hops/6.xml: more than 5 redirects');
  });

  it('fetches only https, and plain http only from loopback', async () => {
    await expect(refresh({ kind: 'sdn-advanced-xml', file: 'http://example.com/sdn_advanced.xml' })).rejects.toThrow(
      'only https URLs are fetched (http only from loopback), not http://example.com',
    );
    await expect(refresh({ kind: 'sdn-advanced-xml', file: 'ftp://example.com/sdn_advanced.xml' })).rejects.toThrow('only https URLs are fetched');
    await expect(refresh({ kind: 'address-lists', dir: `${base}/lists/` })).rejects.toThrow('address lists are read from a local directory');
  });
});

describe('refreshSanctionsList counts', () => {
  const own = blockStore('sanctions-load-counts');

  it('address lists without a first-seen file name no entry: 0 entries, 641 addresses', async () => {
    const result = await refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'address-lists', dir: addressListsDir });
    expect(result).toMatchObject({ changed: true, addressCount: 641, entryCount: 0 });
    expect(await own().read('SELECT address_count, entry_count FROM sanctions_list_loads')).toEqual([{ address_count: 641, entry_count: 0 }]);
    expect(await own().read("SELECT count(*) AS n FROM sanctioned_addresses WHERE sdn_uid <> ''")).toEqual([{ n: '0' }]);
  });
});

describe('refreshSanctionsList going back to an earlier source', () => {
  const own = blockStore('sanctions-load-back');

  it('compares with the newest load, so returning to an earlier source replaces the list again', async () => {
    const run = (source: SanctionsSource) => refreshSanctionsList({ store: own(), log: silentLogger }, source, { allowShrink: true });
    expect((await run({ kind: 'sdn-csv', sdnFile: sdn2024 })).changed).toBe(true);
    expect((await run({ kind: 'sdn-advanced-xml', file: samplePath })).changed).toBe(true);
    const back = await run({ kind: 'sdn-csv', sdnFile: sdn2024 });
    expect(back).toMatchObject({ changed: true, sha256: sha256(sdn2024) });
    // 0xa7e5…b008 (entry 29702) is in the 2024 CSV, not in the sample.
    expect(await own().read("SELECT sdn_uid FROM sanctioned_addresses WHERE address = '0xa7e5d5a720f06526557c513402f2e6b5fa20b008'")).toEqual([{ sdn_uid: '29702' }]);
    expect(await own().read('SELECT count(*) AS n FROM sanctions_list_loads')).toEqual([{ n: '3' }]);
  });
});

describe('refreshSanctionsList refusing a sharp drop', () => {
  const own = blockStore('sanctions-load-shrink');
  const run = (source: SanctionsSource, options?: RefreshOptions) => refreshSanctionsList({ store: own(), log: silentLogger }, source, options);
  const count = async () => (await own().read('SELECT count(DISTINCT address)::INTEGER AS n FROM sanctioned_addresses'))[0]!.n;

  it('keeps the list when sdn.csv is cut at a line boundary, and loads it when told to', async () => {
    await run({ kind: 'sdn-csv', sdnFile: sdn2024 });
    expect(await count()).toBe(280);
    // The first 7,000 lines parse as a shorter list: nothing in the file says it was cut.
    const cut = path.join(work, 'cut-at-a-line.csv');
    writeFileSync(cut, readFileSync(sdn2024, 'latin1').split('\r\n').slice(0, 7000).join('\r\n') + '\r\n', 'latin1');
    const refused = run({ kind: 'sdn-csv', sdnFile: cut });
    await expect(refused).rejects.toThrow(ListShrinkError);
    await expect(refused).rejects.toThrow(/cut-at-a-line\.csv: lacks 258 of the 280 loaded addresses \(more than 10%\).*\{"allowShrink": true\}$/);
    expect(await count()).toBe(280);
    expect(await own().read('SELECT count(*)::INTEGER AS n FROM sanctions_list_loads')).toEqual([{ n: 1 }]);

    expect(await run({ kind: 'sdn-csv', sdnFile: cut }, { allowShrink: true })).toMatchObject({ changed: true, addressCount: 22 });
    expect(await count()).toBe(22);
  });

  it('through the job: a tenth may go, more is refused without allowShrink and not retried', async () => {
    const dir = path.join(work, 'shrinking-lists');
    mkdirSync(dir, { recursive: true });
    const eth = readFileSync(path.join(addressListsDir, 'sanctioned_addresses_ETH.txt'), 'utf8').split('\n').slice(0, 10);
    const publish = (addresses: string[]) => writeFileSync(path.join(dir, 'sanctioned_addresses_ETH.txt'), addresses.join('\n') + '\n');
    const deps = { store: own(), config: loadConfig({ DATA_DIR: work, SANCTIONS_LIST_SOURCE: dir }), log: silentLogger };
    const refresh = (data: unknown) => runHandler(deps, 'refresh-sanctions-list', data);

    publish(eth); // in place of the list the test above left
    await expect(refresh({ allowShrink: true })).resolves.toMatchObject({ changed: true, addressCount: 10 });
    publish(eth.slice(1)); // 1 of 10: exactly a tenth
    await expect(refresh({})).resolves.toMatchObject({ changed: true, addressCount: 9 });
    publish(eth.slice(2)); // 1 of 9: more than a tenth
    const refused = refresh({});
    await expect(refused).rejects.toThrow(JobInputError);
    await expect(refused).rejects.toThrow('lacks 1 of the 9 loaded addresses');
    expect(await count()).toBe(9);
    await expect(refresh({ allowShrink: true })).resolves.toMatchObject({ changed: true, addressCount: 8 });
    expect(() => refresh({ allowShrink: 'yes' })).toThrow(/^refresh-sanctions-list: allowShrink: /);
    // Only the addresses dropped count: a list that adds some needs no confirmation.
    publish([...eth.slice(2), eth[0]!]);
    await expect(refresh({})).resolves.toMatchObject({ changed: true, addressCount: 9 });
  });
});

describe('refreshSanctionsList: drops are not offset by additions', () => {
  const own = blockStore('sanctions-load-swap');

  it('a list that swaps out more than a tenth for as many new addresses is refused', async () => {
    const dir = path.join(work, 'swapping-lists');
    mkdirSync(dir, { recursive: true });
    const eth = readFileSync(path.join(addressListsDir, 'sanctioned_addresses_ETH.txt'), 'utf8').split('\n').slice(0, 12);
    const publish = (addresses: string[]) => writeFileSync(path.join(dir, 'sanctioned_addresses_ETH.txt'), addresses.join('\n') + '\n');
    const run = (options?: RefreshOptions) => refreshSanctionsList({ store: own(), log: silentLogger }, { kind: 'address-lists', dir }, options);

    publish(eth.slice(0, 10));
    await expect(run()).resolves.toMatchObject({ changed: true, addressCount: 10 });
    // Ten addresses again, two of them new: two of the loaded ten would answer clear.
    publish([...eth.slice(2, 10), eth[10]!, eth[11]!]);
    await expect(run()).rejects.toThrow('lacks 2 of the 10 loaded addresses');
    expect(await own().read("SELECT count(*)::INTEGER AS n FROM sanctioned_addresses WHERE address = lower($1)", [eth[0]!])).toEqual([{ n: 1 }]);
  });
});

describe('refreshSanctionsList: what a refresh tells the operator', () => {
  const own = blockStore('sanctions-load-warnings');
  const files = tempDataDir('sanctions-load-warnings-files');
  const refreshLogged = async (source: SanctionsSource, options?: RefreshOptions) => {
    const logged: string[] = [];
    const result = await refreshSanctionsList({ store: own(), log: createLogger('test', (line) => logged.push(line)) }, source, { allowShrink: true, ...options });
    return { result, logged };
  };

  it('warns about an address item it cannot read (a typo in entry 27307 of the real sdn.csv)', async () => {
    const row = readFileSync(sdn2024, 'utf8').split('\r\n').find((line) => line.startsWith('27307,'))!;
    const file = path.join(files, 'typo.csv');
    writeFileSync(file, `${row.replace('0x098B716B8Aaf2151', '0x098B716B8Aaf2151 ')}\r\n\x1a`);
    const { logged } = await refreshLogged({ kind: 'sdn-csv', sdnFile: file });
    const warning = logged.find((line) => line.includes(' warn test:sanctions sanctions source has defects'));
    expect(warning).toContain('entry 27307: unreadable address item \\"Digital Currency Address - ETH 0x098B716B8Aaf2151 2996dC57EB0615e2383E2f96\\"');
  });

  it('warns about addresses of no known family, which no lookup can match', async () => {
    const dir = path.join(files, 'new-label');
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(addressListsDir, 'sanctioned_addresses_ETH.txt'), path.join(dir, 'sanctioned_addresses_ETH.txt'));
    // A real Monero address (of the XMR list) under a label this code does not know.
    const xmr = readFileSync(path.join(addressListsDir, 'sanctioned_addresses_XMR.txt'), 'utf8').split('\n')[0]!.trim();
    writeFileSync(path.join(dir, 'sanctioned_addresses_NEW.txt'), `${xmr}\n`);
    const { logged } = await refreshLogged({ kind: 'address-lists', dir });
    const warning = logged.find((line) => line.includes(' warn test:sanctions addresses of no known family: no lookup can match them'));
    expect(warning).toContain(`"addresses":["NEW ${xmr}"]`);
  });

  it('accepts a source of exactly the size limit, and refuses one byte more', async () => {
    const size = readFileSync(samplePath).byteLength;
    await expect(refreshLogged({ kind: 'sdn-advanced-xml', file: samplePath }, { limits: { timeoutMs: 5_000, maxBytes: size } })).resolves.toMatchObject({
      result: { addressCount: 12 },
    });
    await expect(refreshLogged({ kind: 'sdn-advanced-xml', file: samplePath }, { limits: { timeoutMs: 5_000, maxBytes: size - 1 } })).rejects.toThrow(
      `sdn_advanced-sample.xml: larger than ${size - 1} bytes`,
    );
  });
});

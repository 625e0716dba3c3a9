// The faulty JSON-RPC proxy, driven with plain fetch: every kind of fault happens, eth_getLogs
// limits are enforced as providers enforce them, and whatever is not faulted is the devnet's answer.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { startFaultyRpcProxy, type FaultyRpcProxy, type FaultyRpcProxyOptions } from '../devnet/faulty-rpc-proxy.ts';

let devnet: Devnet;
let proxy: FaultyRpcProxy | undefined;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0 });
});
afterAll(() => devnet?.close());
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function start(options: Partial<FaultyRpcProxyOptions>) {
  proxy = await startFaultyRpcProxy({ target: devnet.rpcUrl, seed: 'test', faultRate: 0, ...options });
  return proxy;
}

let nextId = 1;
const call = (method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id: nextId++, method, params });

function post(url: string, body: unknown, signal?: AbortSignal) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

async function rpc(url: string, body: unknown) {
  const res = await post(url, body);
  return { status: res.status, body: (await res.json()) as any };
}

/** The devnet's mints: one Transfer log each, in consecutive blocks. */
const allTokenLogs = () => call('eth_getLogs', [{ address: devnet.token.address, fromBlock: '0x0', toBlock: 'latest' }]);

describe('faulty RPC proxy', () => {
  it('without faults answers exactly as the devnet, single calls and batches alike', async () => {
    const { url, stats } = await start({});
    const requests = [call('eth_blockNumber'), call('eth_getBlockByNumber', ['0x2', false]), allTokenLogs(), call('eth_chainId')];
    for (const request of requests) {
      expect((await rpc(url, request)).body).toEqual((await rpc(devnet.rpcUrl, request)).body);
    }
    const proxied = await rpc(url, requests);
    expect(proxied.status).toBe(200);
    expect(proxied.body).toEqual((await rpc(devnet.rpcUrl, requests)).body);
    expect(proxied.body.map((a: { id: number }) => a.id)).toEqual(requests.map((r) => r.id));
    expect(stats).toMatchObject({ requests: 5, forwarded: 5, rate_limit: 0, timeout: 0, dropped: 0, too_many_results: 0, block_range: 0 });
  });

  it('rate limits with HTTP 429 and Retry-After', async () => {
    const { url, stats } = await start({ faultRate: 1, faults: ['rate_limit'] });
    const res = await post(url, call('eth_blockNumber'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as any).error).toMatchObject({ code: 429, message: expect.stringMatching(/exceeded its compute units/) });
    expect(stats.rate_limit).toBe(1);
  });

  it('drops the connection without answering', async () => {
    const { url, stats } = await start({ faultRate: 1, faults: ['dropped'] });
    await expect(post(url, call('eth_blockNumber'))).rejects.toThrow(/fetch failed/);
    expect(stats.dropped).toBe(1);
  });

  it('holds a request past the client timeout, then drops it', async () => {
    const { url, stats } = await start({ faultRate: 1, faults: ['timeout'], holdMs: 400 });
    const started = Date.now();
    await expect(post(url, call('eth_blockNumber'), AbortSignal.timeout(100))).rejects.toThrow(/aborted due to timeout/);
    // A client that waits longer gets no answer either: the connection is closed after holdMs.
    await expect(post(url, call('eth_blockNumber'))).rejects.toThrow(/fetch failed/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(stats.timeout).toBe(2);
  });

  it('refuses eth_getLogs at random with the too-many-results error, and only eth_getLogs', async () => {
    const { url, stats } = await start({ faultRate: 1, faults: ['too_many_results'] });
    const logs = await rpc(url, allTokenLogs());
    expect(logs.status).toBe(200);
    expect(logs.body.error).toMatchObject({ code: -32005, message: expect.stringMatching(/^query returned more than 10000 results\. Try with this block range \[0x0, 0x[0-9a-f]+\]\.$/) });
    expect((await rpc(url, call('eth_chainId'))).body.result).toBe('0x539');
    expect(stats).toMatchObject({ too_many_results: 1, forwarded: 2 });
  });

  it('refuses eth_getLogs over too many blocks, as Alchemy does, and serves smaller ranges', async () => {
    const { url, stats } = await start({ maxBlockRange: 5 });
    const wide = await rpc(url, allTokenLogs());
    expect(wide.body.error.code).toBe(-32600);
    expect(wide.body.error.message).toMatch(/^You can make eth_getLogs requests with up to a 5 block range\. Based on your parameters, this block range should work: \[0x0, 0x5\]$/);
    const narrow = call('eth_getLogs', [{ address: devnet.token.address, fromBlock: '0x4', toBlock: '0x9' }]);
    expect((await rpc(url, narrow)).body).toEqual((await rpc(devnet.rpcUrl, narrow)).body);
    // In a batch only the offending call fails.
    const batch = await rpc(url, [allTokenLogs(), call('eth_chainId')]);
    expect(batch.body.map((a: any) => a.error?.code ?? a.result)).toEqual([-32600, '0x539']);
    expect(stats.block_range).toBe(2);
  });

  it('refuses eth_getLogs whose answer has more than maxResults logs, suggesting a range that fits', async () => {
    const { url, stats } = await start({ maxResults: 3 });
    const direct = (await rpc(devnet.rpcUrl, allTokenLogs())).body.result as { blockNumber: string }[];
    expect(direct.length).toBeGreaterThan(3);
    const refused = (await rpc(url, allTokenLogs())).body.error;
    expect(refused).toMatchObject({ code: -32005, data: { from: '0x0', limit: 3 } });
    const suggested = /\[(0x[0-9a-f]+), (0x[0-9a-f]+)\]/.exec(refused.message)!;
    const fits = (await rpc(url, call('eth_getLogs', [{ address: devnet.token.address, fromBlock: suggested[1], toBlock: suggested[2] }]))).body.result;
    expect(fits).toEqual(direct.slice(0, 3));
    expect(stats.too_many_results).toBe(1);
  });

  it('draws the same faults for the same seed', async () => {
    const kinds = async () => {
      const { url, stats } = await start({ faultRate: 0.5, faults: ['rate_limit', 'too_many_results'] });
      const seen: string[] = [];
      for (let i = 0; i < 12; i++) {
        const { status, body } = await rpc(url, allTokenLogs());
        seen.push(status === 429 ? 'rate_limit' : body.error ? 'too_many_results' : 'ok');
      }
      await proxy!.close();
      proxy = undefined;
      return { seen, stats: { ...stats } };
    };
    const first = await kinds();
    expect(new Set(first.seen)).toEqual(new Set(['rate_limit', 'too_many_results', 'ok']));
    expect(await kinds()).toEqual(first);
  });
});

// The RPC wrapper's reading of provider errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockNotFoundError, createRpc, RangeTooLargeError, RpcFailedError, suggestedRange } from '../pipeline/chain/rpc.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { devnetClients } from '../devnet/clients.ts';
import { startFaultyRpcProxy, type FaultyRpcProxy, type FaultyRpcProxyOptions } from '../devnet/faulty-rpc-proxy.ts';
import { tokenEvents } from '../pipeline/ingest/sources.ts';
import { sendJson, startLoopbackServer, type LoopbackServer } from './helpers/loopback-server.ts';

describe('suggestedRange', () => {
  it.each([
    ['Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size', 2000n],
    ['query returned more than 10000 results. Try with this block range [0x1a2b, 0x1b2a].', 256n],
    ['block range is too large, maximum allowed is 5000 blocks', 5000n],
    ['eth_getLogs is limited to a 10000 blocks range', 10000n],
    ['query returned more than 10000 results', null],
  ])('%s → %s', (message, expected) => {
    expect(suggestedRange(message)).toBe(expected);
  });
});

// The retry policy, against the devnet through the fault-injecting proxy.
describe('createRpc retry policy', () => {
  let devnet: Devnet;
  const proxies: FaultyRpcProxy[] = [];
  let notFound: LoopbackServer;
  let notFoundHits = 0;
  // Answers every other eth_getLogs with a rate-limit error worded like a range error (HTTP 200), the rest with no logs.
  let wordy: LoopbackServer;
  let wordyHits = 0;
  // Answers eth_blockNumber with 16, every other request refused with HTTP 429 and Retry-After: 1,
  // its body plain text or one JSON-RPC error object (as Alchemy sends, even to a batch).
  let limited: LoopbackServer;
  let limitedHits = 0;
  let limitedBody: 'text' | 'json-rpc error' = 'text';
  // Answers every call with the JSON-RPC error in `fatalError` (HTTP 200).
  let fatal: LoopbackServer;
  let fatalHits = 0;
  let fatalError = { code: 0, message: '' };
  beforeAll(async () => {
    fatal = await startLoopbackServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number } | { id: number }[];
      fatalHits++;
      const answer = (call: { id: number }) => ({ jsonrpc: '2.0', id: call.id, error: fatalError });
      sendJson(res, Array.isArray(body) ? body.map(answer) : answer(body));
    });
    wordy = await startLoopbackServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number } | { id: number }[];
      const limitedNow = wordyHits++ % 2 === 0;
      const answer = (call: { id: number }) =>
        limitedNow ? { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'daily request rate limit exceeded' } } : { jsonrpc: '2.0', id: call.id, result: [] };
      sendJson(res, Array.isArray(body) ? body.map(answer) : answer(body));
    });
    limited = await startLoopbackServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number } | { id: number }[];
      if (limitedHits++ % 2 === 0) {
        if (limitedBody === 'text') res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too Many Requests');
        else {
          const id = Array.isArray(body) ? body[0]!.id : body.id;
          const error = { jsonrpc: '2.0', id, error: { code: 429, message: 'Your app has exceeded its compute units per second capacity.' } };
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify(error));
        }
        return;
      }
      const answer = (call: { id: number }) => ({ jsonrpc: '2.0', id: call.id, result: '0x10' });
      sendJson(res, Array.isArray(body) ? body.map(answer) : answer(body));
    });
    devnet = await startDevnet({ port: 0 });
    notFound = await startLoopbackServer((_req, res) => {
      notFoundHits++;
      sendJson(res, { error: 'not found' }, 404);
    });
  }, 60_000);
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    await devnet?.close();
  });
  const proxy = async (options: Omit<FaultyRpcProxyOptions, 'target'>) => {
    const p = await startFaultyRpcProxy({ target: devnet.rpcUrl, ...options });
    proxies.push(p);
    return p;
  };

  it.each(['text', 'json-rpc error'] as const)('waits the Retry-After of an HTTP 429 (%s body) before trying again, however small its own backoff', async (shape) => {
    limitedBody = shape;
    const rpc = createRpc({ url: limited.origin, baseDelayMs: 1 });
    const started = performance.now();
    expect(await rpc.getBlockNumber()).toBe(16n);
    const elapsed = performance.now() - started;
    expect(rpc.stats).toEqual({ requests: 2, retries: 1 });
    // Retry-After: 1 means a second, not the millisecond of jitter the backoff alone would wait.
    expect(elapsed).toBeGreaterThanOrEqual(950);
  });

  it('retries a rate-limited eth_getLogs even when the wording looks like a range error', async () => {
    const rpc = createRpc({ url: wordy.origin, baseDelayMs: 1 });
    expect(await rpc.getLogs({ address: '0x0000000000000000000000000000000000000001', events: tokenEvents, fromBlock: 0n, toBlock: 5n })).toEqual([]);
    expect(rpc.stats).toEqual({ requests: 2, retries: 1 });
  });

  it('reports a timed-out eth_getLogs as a range too large, at once; other calls are retried up to maxAttempts', async () => {
    const { url, stats } = await proxy({ seed: 'timeouts', faultRate: 1, faults: ['timeout'], holdMs: 2_000 });
    const rpc = createRpc({ url, timeoutMs: 200, baseDelayMs: 1, maxAttempts: 3 });
    await expect(rpc.getLogs({ address: devnet.token.address, events: tokenEvents, fromBlock: 0n, toBlock: 5n })).rejects.toBeInstanceOf(RangeTooLargeError);
    expect(stats.timeout).toBe(1);
    const blockNumber = rpc.getBlockNumber();
    await expect(blockNumber).rejects.toBeInstanceOf(RpcFailedError);
    await expect(blockNumber).rejects.toThrow(/failed after 3 attempts/);
    expect(stats.timeout).toBe(4);
  });

  it('does not retry what no retry can fix (HTTP 404): one attempt', async () => {
    const rpc = createRpc({ url: notFound.origin, baseDelayMs: 1 });
    await expect(rpc.getBlockNumber()).rejects.toThrow(/failed after 1 attempt:/);
    expect(rpc.stats).toEqual({ requests: 1, retries: 0 });
    expect(notFoundHits).toBe(1);
  });

  it.each([
    ['method not found', { code: -32601, message: 'the method eth_blockNumber does not exist/is not available' }],
    ['execution reverted', { code: -32000, message: 'execution reverted' }],
  ])('does not retry a JSON-RPC error no retry can fix (%s): one attempt', async (_name, error) => {
    fatalError = error;
    fatalHits = 0;
    const rpc = createRpc({ url: fatal.origin, baseDelayMs: 1 });
    await expect(rpc.getBlockNumber()).rejects.toThrow(/failed after 1 attempt:/);
    expect(rpc.stats).toEqual({ requests: 1, retries: 0 });
    expect(fatalHits).toBe(1);
  });

  it('reports a block the node does not have as BlockNotFoundError, without retrying', async () => {
    const rpc = createRpc({ url: devnet.rpcUrl, baseDelayMs: 1 });
    const head = await rpc.getBlockNumber();
    await expect(rpc.getBlock(head + 100n)).rejects.toBeInstanceOf(BlockNotFoundError);
    expect(rpc.stats).toEqual({ requests: 2, retries: 0 });
  });

  it('reads a new head at once: one client asked again after a block is mined sees it', async () => {
    const rpc = createRpc({ url: devnet.rpcUrl });
    const before = await rpc.getBlockNumber();
    await devnetClients(devnet).testClient.mine({ blocks: 1 });
    expect(await rpc.getBlockNumber()).toBe(before + 1n);
  });
});

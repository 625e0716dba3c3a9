// A JSON-RPC proxy in front of the devnet that misbehaves the way hosted RPC providers do, so
// ingestion can be tested against rate limits, timeouts, dropped connections and eth_getLogs
// limits without a real provider. Faults are drawn from a seeded generator: the same seed and the
// same sequence of requests give the same faults.
//
// The eth_getLogs errors use real providers' wording:
// - block range: Alchemy's, HTTP 200 with {code: -32600, message: "You can make eth_getLogs
//   requests with up to a 500 block range. Based on your parameters, this block range should
//   work: [0x…, 0x…]"} (500 replaced by maxBlockRange), when toBlock - fromBlock exceeds it
//   (Alchemy's "2K block range" suggestion is [from, from + 2000]).
// - too many results: Infura's (also Geth's), {code: -32005, message: "query returned more than
//   10000 results. Try with this block range [0x…, 0x…].", data: {from, to, limit}} (10000
//   replaced by maxResults), when the real answer is longer, and now and then at random.
// - rate limit: Alchemy's HTTP 429 with Retry-After and {code: 429, message: "Your app has
//   exceeded its compute units per second capacity…"}.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Prng } from './prng.ts';

/** Faults drawn at random, with probability `faultRate` per HTTP request. */
export type RandomFault = 'rate_limit' | 'timeout' | 'dropped' | 'too_many_results';

export interface FaultyRpcProxyOptions {
  /** The JSON-RPC endpoint to forward to, e.g. the devnet's rpcUrl. */
  target: string;
  seed: string;
  /** Probability (0 to 1) that an HTTP request gets one of `faults`. */
  faultRate: number;
  /** eth_getLogs whose toBlock - fromBlock exceeds this is refused, always. No limit unless given. */
  maxBlockRange?: number;
  /** eth_getLogs whose answer has more logs than this is refused, always. 10,000 unless given. */
  maxResults?: number;
  /** The random faults to draw from; all four unless given. too_many_results only hits eth_getLogs. */
  faults?: RandomFault[];
  /** How long a `timeout` request is held before its connection is dropped; 30 s unless given. */
  holdMs?: number;
}

export interface FaultStats {
  /** HTTP requests received. */
  requests: number;
  /** HTTP requests forwarded (some of their calls may still have been answered with an error). */
  forwarded: number;
  rate_limit: number;
  timeout: number;
  dropped: number;
  /** eth_getLogs calls answered with the too-many-results error, at random or because they were. */
  too_many_results: number;
  /** eth_getLogs calls answered with the block-range error. */
  block_range: number;
}

export interface FaultyRpcProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Live counts of what the proxy did. */
  stats: FaultStats;
  close(): Promise<void>;
}

interface RpcCall {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

interface RpcAnswer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface LogFilter {
  fromBlock?: string;
  toBlock?: string;
  blockHash?: string;
}

const ALL_FAULTS: RandomFault[] = ['rate_limit', 'timeout', 'dropped', 'too_many_results'];
const RATE_LIMIT_MESSAGE =
  'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. ' +
  'If not, check out https://docs.alchemy.com/reference/throughput';

const hex = (n: bigint) => `0x${n.toString(16)}`;

export async function startFaultyRpcProxy(options: FaultyRpcProxyOptions): Promise<FaultyRpcProxy> {
  const rng = new Prng(options.seed, 'faulty-rpc-proxy');
  const faults = options.faults ?? ALL_FAULTS;
  const maxResults = options.maxResults ?? 10_000;
  const holdMs = options.holdMs ?? 30_000;
  const stats: FaultStats = { requests: 0, forwarded: 0, rate_limit: 0, timeout: 0, dropped: 0, too_many_results: 0, block_range: 0 };
  const held = new Set<{ timer: NodeJS.Timeout; socket: Socket }>();

  async function post(body: unknown): Promise<unknown> {
    const res = await fetch(options.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json();
  }

  async function latestBlock(): Promise<bigint> {
    const answer = (await post({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] })) as RpcAnswer;
    return BigInt(answer.result as string);
  }

  /** The block numbers a filter spans, tags resolved; undefined for a single-block blockHash filter. */
  async function span(filter: LogFilter, latest: () => Promise<bigint>): Promise<{ from: bigint; to: bigint } | undefined> {
    if (filter.blockHash) return undefined;
    const resolve = async (tag: string | undefined) =>
      tag === undefined || ['latest', 'pending', 'safe', 'finalized'].includes(tag) ? latest() : tag === 'earliest' ? 0n : BigInt(tag);
    return { from: await resolve(filter.fromBlock), to: await resolve(filter.toBlock) };
  }

  const error = (call: RpcCall, code: number, message: string, data?: unknown): RpcAnswer => ({
    jsonrpc: '2.0',
    id: call.id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });

  function tooManyResults(call: RpcCall, from: bigint, to: bigint, suggestedTo: bigint): RpcAnswer {
    stats.too_many_results++;
    return error(call, -32005, `query returned more than ${maxResults} results. Try with this block range [${hex(from)}, ${hex(suggestedTo)}].`, {
      from: hex(from),
      to: hex(to),
      limit: maxResults,
    });
  }

  /** Answers every call: injected errors for eth_getLogs that break a limit, the target's answers for the rest. */
  async function answer(calls: RpcCall[], randomTooMany: RpcCall | undefined): Promise<RpcAnswer[]> {
    let latest: Promise<bigint> | undefined;
    const latestOnce = () => (latest ??= latestBlock());
    const spans = await Promise.all(calls.map((call) => (call.method === 'eth_getLogs' ? span((call.params?.[0] ?? {}) as LogFilter, latestOnce) : undefined)));

    const answers: (RpcAnswer | undefined)[] = calls.map((call, i) => {
      const range = spans[i];
      if (call === randomTooMany) {
        const { from, to } = range ?? { from: 0n, to: 0n };
        return tooManyResults(call, from, to, from + (to - from) / 2n);
      }
      if (range && options.maxBlockRange !== undefined && range.to - range.from > BigInt(options.maxBlockRange)) {
        stats.block_range++;
        const suggestedTo = range.from + BigInt(options.maxBlockRange);
        return error(
          call,
          -32600,
          `You can make eth_getLogs requests with up to a ${options.maxBlockRange} block range. ` +
            `Based on your parameters, this block range should work: [${hex(range.from)}, ${hex(suggestedTo)}]`,
        );
      }
      return undefined;
    });

    const forward = calls.filter((_, i) => answers[i] === undefined);
    if (forward.length > 0) {
      const forwarded = (await post(forward)) as RpcAnswer[];
      const byId = new Map(forwarded.map((a) => [a.id, a]));
      calls.forEach((call, i) => {
        if (answers[i] !== undefined) return;
        const real = byId.get(call.id)!;
        const range = spans[i];
        const logs = real.result;
        answers[i] = range && Array.isArray(logs) && logs.length > maxResults ? tooManyResults(call, range.from, range.to, lastBlockWithin(logs, range.from)) : real;
      });
    }
    return answers as RpcAnswer[];
  }

  /** Where Infura would suggest to stop: before the block holding log number maxResults + 1. */
  function lastBlockWithin(logs: { blockNumber: string }[], from: bigint): bigint {
    const overflowBlock = logs.map((l) => BigInt(l.blockNumber)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[maxResults]!;
    return overflowBlock > from ? overflowBlock - 1n : from;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: RpcCall | RpcCall[];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcCall | RpcCall[];
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    const calls = Array.isArray(body) ? body : [body];
    const getLogs = calls.filter((call) => call.method === 'eth_getLogs');

    let randomTooMany: RpcCall | undefined;
    if (rng.next() < options.faultRate) {
      const possible = faults.filter((fault) => fault !== 'too_many_results' || getLogs.length > 0);
      const fault = possible.length > 0 ? rng.pick(possible) : undefined;
      switch (fault) {
        case 'rate_limit':
          stats.rate_limit++;
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: calls[0]?.id ?? null, error: { code: 429, message: RATE_LIMIT_MESSAGE } }));
          return;
        case 'timeout': {
          stats.timeout++;
          // Longer than a client waits; then the connection goes, with no answer at all.
          const entry = { socket: req.socket, timer: setTimeout(() => (held.delete(entry), req.socket.destroy()), holdMs) };
          held.add(entry);
          return;
        }
        case 'dropped':
          stats.dropped++;
          req.socket.destroy();
          return;
        case 'too_many_results':
          randomTooMany = rng.pick(getLogs);
          break;
      }
    }

    stats.forwarded++;
    const answers = await answer(calls, randomTooMany);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // The target failed (e.g. the devnet is gone): answer like a gateway would.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const entry of held) {
          clearTimeout(entry.timer);
          entry.socket.destroy();
        }
        held.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

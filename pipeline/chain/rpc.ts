// All JSON-RPC access of the pipeline goes through one wrapper: viem with its own retries off,
// then bounded concurrency and our retry policy in one place. 429s, timeouts and dropped
// connections mean "slow down and try again"; a provider refusing a getLogs range is not retried
// here but reported as a RangeTooLargeError so the caller can shrink the range.
import { createPublicClient, http, type AbiEvent, type Address, type Hash, type Log, type PublicClient } from 'viem';
import pLimit from 'p-limit';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RpcOptions {
  url: string;
  /** Requests in flight at once. */
  concurrency?: number;
  timeoutMs?: number;
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  baseDelayMs?: number;
}

export interface BlockInfo {
  number: bigint;
  hash: Hash;
  parentHash: Hash;
  timestamp: bigint;
  /** Sender of each transaction, when the block was fetched with transactions. */
  senders?: Map<Hash, Address>;
}

export interface Rpc {
  getBlockNumber(): Promise<bigint>;
  getBlock(number: bigint, withTransactions?: boolean): Promise<BlockInfo>;
  getLogs<const E extends readonly AbiEvent[]>(args: { address: Address; events: E; fromBlock: bigint; toBlock: bigint }): Promise<Log<bigint, number, false, E[number], true>[]>;
  readonly stats: { requests: number; retries: number };
}

/** The provider refused the range of an eth_getLogs; `suggestedBlocks` when it said what it takes. */
export class RangeTooLargeError extends Error {
  override name = 'RangeTooLargeError';
  constructor(
    message: string,
    readonly suggestedBlocks: bigint | null,
  ) {
    super(message);
  }
}

export class RpcFailedError extends Error {
  override name = 'RpcFailedError';
}

/** The node has no block at that number (yet, or any more after a reorg). */
export class BlockNotFoundError extends Error {
  override name = 'BlockNotFoundError';
}

// Wording providers use when a getLogs range or result set is too big (Alchemy, Infura,
// QuickNode, geth, Erigon, public Base nodes).
const rangeErrorPattern =
  /more than \d+ results|response size (is )?(exceeded|too big)|block range|range (is )?too (large|wide)|too many (results|blocks|logs)|limit exceeded|exceed(s|ed) (maximum|max)|query timeout|query returned more/i;
// Errors no retry can fix.
const fatalRpcCodes = new Set([-32700, -32601, 3]);
const fatalHttpStatuses = new Set([400, 401, 403, 404, 405, 501]);

export function createRpc(options: RpcOptions): Rpc {
  // Until when the provider asked us to wait (Retry-After of its last refusal). Read from the
  // response itself, not from the error: a 429 whose body is one JSON-RPC error, not the array a
  // batched request expects, reaches us as an error that has lost the response's headers.
  let retryAfterUntil = 0;
  const client: PublicClient = createPublicClient({
    transport: http(options.url, {
      retryCount: 0,
      timeout: options.timeoutMs ?? 15_000,
      batch: { batchSize: 100 },
      onFetchResponse: (response) => {
        const ms = response.ok ? 0 : retryAfterHeaderMs(response.headers);
        if (ms > 0) retryAfterUntil = Math.max(retryAfterUntil, Date.now() + ms);
      },
    }),
  });
  const limit = pLimit(options.concurrency ?? 8);
  const maxAttempts = options.maxAttempts ?? 9;
  const baseDelayMs = options.baseDelayMs ?? 125;
  const stats = { requests: 0, retries: 0 };

  async function call<T>(what: string, fn: () => Promise<T>, isGetLogs = false): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      stats.requests++;
      try {
        return await limit(fn);
      } catch (err) {
        const text = errorText(err);
        if (causes(err).some((e) => (e as Error).name === 'BlockNotFoundError')) throw new BlockNotFoundError(`${what}: no such block`);
        // A getLogs that times out is usually one the provider finds too big: shrink, don't wait.
        // A rate limit is not about the range: it goes to the retry below.
        if (isGetLogs && !isRateLimit(err, text) && (rangeErrorPattern.test(text) || isTimeout(err))) {
          throw new RangeTooLargeError(firstLine(text), suggestedRange(text));
        }
        if (!isRetryable(err) || attempt >= maxAttempts) {
          throw new RpcFailedError(`${what} failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${firstLine(text)}`);
        }
        stats.retries++;
        // Exponential backoff with full jitter; honour Retry-After when the provider sends one.
        const backoff = Math.min(baseDelayMs * 2 ** (attempt - 1), 10_000);
        await sleep(Math.max(retryAfterUntil - Date.now(), Math.random() * backoff));
      }
    }
  }

  return {
    stats,
    getBlockNumber: () => call('eth_blockNumber', () => client.getBlockNumber({ cacheTime: 0 })),
    getBlock: async (number, withTransactions = false) => {
      const block = await call(`eth_getBlockByNumber(${number})`, () =>
        client.getBlock({ blockNumber: number, includeTransactions: withTransactions }),
      );
      if (!block.hash) throw new RpcFailedError(`block ${number} has no hash (pending?)`);
      const info: BlockInfo = { number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
      if (withTransactions) {
        info.senders = new Map(
          (block.transactions as readonly ({ hash: Hash; from: Address } | Hash)[]).flatMap((tx) =>
            typeof tx === 'string' ? [] : [[tx.hash, tx.from.toLowerCase() as Address] as const],
          ),
        );
      }
      return info;
    },
    getLogs: (args) =>
      call(
        `eth_getLogs(${args.fromBlock}-${args.toBlock})`,
        () => client.getLogs({ address: args.address, events: args.events, fromBlock: args.fromBlock, toBlock: args.toBlock, strict: true }),
        true,
      ) as never,
  };
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 10; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function errorText(err: unknown): string {
  return causes(err)
    .map((e) => [(e as Error).message, (e as { details?: string }).details].filter(Boolean).join(' '))
    .join(' | ');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

function isRetryable(err: unknown): boolean {
  for (const e of causes(err)) {
    const status = (e as { status?: number }).status;
    if (typeof status === 'number' && fatalHttpStatuses.has(status)) return false;
    const code = (e as { code?: number }).code;
    if (typeof code === 'number' && fatalRpcCodes.has(code)) return false;
    if (/execution reverted/i.test((e as Error).message ?? '')) return false;
  }
  return true;
}

function isRateLimit(err: unknown, text: string): boolean {
  return causes(err).some((e) => (e as { status?: number }).status === 429) || /rate.?limit|too many requests|exceeded .*(rps|compute units|capacity)/i.test(text);
}

function isTimeout(err: unknown): boolean {
  return causes(err).some((e) => (e as Error).name === 'TimeoutError');
}

/** Retry-After in whole seconds as milliseconds (at most 30 s), or 0. */
function retryAfterHeaderMs(headers: Headers): number {
  const value = headers.get('retry-after');
  return value && /^\d+$/.test(value) ? Math.min(Number(value) * 1000, 30_000) : 0;
}

/** Block count a provider said it accepts: "up to a 2K block range", "[0x10, 0x20]", "10000 blocks". */
export function suggestedRange(text: string): bigint | null {
  const pair = /\[(0x[0-9a-f]+),\s*(0x[0-9a-f]+)\]/i.exec(text);
  if (pair) return BigInt(pair[2]!) - BigInt(pair[1]!) + 1n;
  const k = /up to a? ?(\d+)K block range/i.exec(text);
  if (k) return BigInt(k[1]!) * 1000n;
  const blocks = /(?:range|maximum|max|limit)[^\d]{0,20}(\d+) blocks?/i.exec(text);
  if (blocks) return BigInt(blocks[1]!);
  return null;
}

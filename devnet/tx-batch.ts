// Sends many transactions to the devnet and mines them together in blocks with chosen timestamps.
//
// One transaction per block, each awaited, would make a large simulation take minutes: ganache
// mines a block per eth_sendTransaction and every receipt is a round trip. Instead the miner is
// stopped, a day's transactions are signed locally with nonces tracked here, sent in JSON-RPC
// batches, and mined with evm_mine at the day's timestamp (spilling into further blocks 2 s apart
// when they exceed the block gas limit). Every receipt is then checked: nothing reverts silently.
import {
  createClient,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  keccak256,
  parseGwei,
  rpcSchema,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import type { DevnetNode } from './node.ts';

export interface TxRequest {
  /** Names the transaction in errors, e.g. "register agent 7". */
  label: string;
  to: Address;
  data?: Hex;
  value?: bigint;
  gas: bigint;
}

export interface MinedTx {
  receipt: TransactionReceipt;
  timestamp: bigint;
}

type Sender = { kind: 'signed'; account: PrivateKeyAccount } | { kind: 'unlocked'; address: Address };

// ganache's evm_mine takes the new block's timestamp (viem's schema only knows `blocks`).
type GanacheMine = { Method: 'evm_mine'; Parameters: [{ timestamp: number }]; ReturnType: string };

/** Blocks that spill over from one evm_mine are this far apart, like Base's. */
const BLOCK_SECONDS = 2;
const SEND_CHUNK = 500;
/**
 * Fixed fees, so a transaction never waits in the pool behind a rising base fee: EIP-1559 raises
 * it by 12.5% per full block, and a busy simulated day fills several blocks in a row.
 */
const FEES = { maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1') };

export class TxBatch {
  readonly #chainId: number;
  readonly #clients;
  readonly #nonces = new Map<Address, number>();
  #queue: { sender: Sender; tx: TxRequest }[] = [];

  private constructor(devnet: DevnetNode) {
    this.#chainId = devnet.chainId;
    // Concurrent requests made in the same tick go out as one JSON-RPC batch.
    const transport = http(devnet.rpcUrl, { batch: { batchSize: SEND_CHUNK }, timeout: 120_000 });
    this.#clients = {
      public: createPublicClient({ transport }),
      wallet: createWalletClient({ transport }),
      test: createTestClient({ mode: 'ganache', transport }),
      ganache: createClient({ transport, rpcSchema: rpcSchema<[GanacheMine]>() }),
    };
  }

  /** Stops the devnet's miner until `close()`: from now on blocks are mined only by `mine()`. */
  static async open(devnet: DevnetNode): Promise<TxBatch> {
    const batch = new TxBatch(devnet);
    await batch.#clients.test.setAutomine(false);
    return batch;
  }

  /** Restarts the miner, so the devnet mines each transaction as it arrives again. */
  async close(): Promise<void> {
    await this.#clients.test.setAutomine(true);
  }

  /** Sets ETH balances directly (no transaction), for accounts that only need gas money. */
  async fund(addresses: Address[], wei: bigint): Promise<void> {
    await Promise.all(addresses.map((address) => this.#clients.test.setBalance({ address, value: wei })));
  }

  /** Queues a transaction signed here by `account`. */
  signed(account: PrivateKeyAccount, tx: TxRequest): void {
    this.#queue.push({ sender: { kind: 'signed', account }, tx });
  }

  /** Queues a transaction the node signs for `address` (an unlocked account, e.g. a facilitator). */
  unlocked(address: Address, tx: TxRequest): void {
    this.#queue.push({ sender: { kind: 'unlocked', address }, tx });
  }

  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Sends everything queued, in queue order, mines it in blocks from `timestamp` (unix seconds,
   * later than the latest block) and returns each transaction's receipt, in queue order.
   */
  async mine(timestamp: number): Promise<MinedTx[]> {
    const queue = this.#queue;
    this.#queue = [];
    await this.#loadNonces(queue.map(({ sender }) => sender));

    const hashes: Hash[] = [];
    for (let start = 0; start < queue.length; start += SEND_CHUNK) {
      const chunk = queue.slice(start, start + SEND_CHUNK).map(({ sender, tx }) => this.#prepare(sender, tx));
      // Sent as one batch; signed in queue order first, so each sender's nonces are in order.
      hashes.push(...(await Promise.all((await Promise.all(chunk)).map((send) => send()))));
    }

    const timestamps = await this.#mineUntilIncluded(hashes, queue, timestamp);
    const receipts = await Promise.all(hashes.map((hash) => this.#clients.public.getTransactionReceipt({ hash })));
    const reverted = receipts.flatMap((receipt, i) => (receipt.status === 'success' ? [] : [queue[i]!.tx.label]));
    if (reverted.length > 0) throw new Error(`${reverted.length} transactions reverted: ${reverted.slice(0, 5).join('; ')}`);
    return receipts.map((receipt) => ({ receipt, timestamp: timestamps.get(receipt.blockNumber)! }));
  }

  async #loadNonces(senders: Sender[]): Promise<void> {
    const unknown = [...new Set(senders.map(senderAddress))].filter((address) => !this.#nonces.has(address));
    const counts = await Promise.all(
      unknown.map((address) => this.#clients.public.getTransactionCount({ address, blockTag: 'pending' })),
    );
    unknown.forEach((address, i) => this.#nonces.set(address, counts[i]!));
  }

  /** Assigns the nonce now; returns the call that sends the transaction and yields its hash. */
  async #prepare(sender: Sender, tx: TxRequest): Promise<() => Promise<Hash>> {
    const address = senderAddress(sender);
    const nonce = this.#nonces.get(address)!;
    this.#nonces.set(address, nonce + 1);
    if (sender.kind === 'signed') {
      const serialized = await sender.account.signTransaction({
        type: 'eip1559',
        chainId: this.#chainId,
        nonce,
        to: tx.to,
        data: tx.data,
        value: tx.value,
        gas: tx.gas,
        ...FEES,
      });
      return async () => {
        await this.#clients.public.request({ method: 'eth_sendRawTransaction', params: [serialized] });
        return keccak256(serialized);
      };
    }
    return () =>
      this.#clients.wallet.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: sender.address,
            to: tx.to,
            data: tx.data,
            value: tx.value === undefined ? undefined : toHex(tx.value),
            gas: toHex(tx.gas),
            nonce: toHex(nonce),
            maxFeePerGas: toHex(FEES.maxFeePerGas),
            maxPriorityFeePerGas: toHex(FEES.maxPriorityFeePerGas),
          },
        ],
      });
  }

  /** Mines blocks until every hash is in one; returns each new block's timestamp by number. */
  async #mineUntilIncluded(hashes: Hash[], queue: { tx: TxRequest }[], timestamp: number): Promise<Map<bigint, bigint>> {
    const pending = new Set(hashes);
    const timestamps = new Map<bigint, bigint>();
    for (let next = timestamp; pending.size > 0; next += BLOCK_SECONDS) {
      await this.#clients.ganache.request({ method: 'evm_mine', params: [{ timestamp: next }] });
      const block = await this.#clients.public.getBlock({ blockTag: 'latest' });
      if (block.transactions.length === 0) {
        const stuck = hashes.flatMap((hash, i) => (pending.has(hash) ? [queue[i]!.tx.label] : []));
        throw new Error(`${stuck.length} transactions were not mined: ${stuck.slice(0, 5).join('; ')}`);
      }
      for (const hash of block.transactions) pending.delete(hash);
      timestamps.set(block.number, block.timestamp);
    }
    return timestamps;
  }
}

function senderAddress(sender: Sender): Address {
  return sender.kind === 'signed' ? sender.account.address : sender.address;
}

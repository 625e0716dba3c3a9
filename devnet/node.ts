// An in-process ganache chain with deterministic, funded accounts.
import ganache from 'ganache';
import { keccak256, parseEther, stringToBytes, toHex, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { memoryStore } from './memory-store.ts';

export const DEVNET_CHAIN_ID = 1337;
const ACCOUNT_COUNT = 12;
const ETH_BALANCE = parseEther('1000');
const DAY_MS = 86_400_000;

export interface DevnetNodeOptions {
  /** 0 picks a free port; the chosen one is in rpcUrl. */
  port: number;
  host?: string;
  /** Same seed, same accounts. */
  seed?: string;
  /** Addresses that may send transactions without a private key (e.g. real facilitators). */
  unlockedAccounts?: Address[];
  /** Timestamp of the genesis block; the chain clock runs on from there. */
  genesisTime?: Date;
}

export interface DevnetNode {
  rpcUrl: string;
  chainId: number;
  accounts: PrivateKeyAccount[];
  close(): Promise<void>;
}

function devnetPrivateKeys(seed: string): Hex[] {
  return Array.from({ length: ACCOUNT_COUNT }, (_, i) => keccak256(stringToBytes(`${seed}:${i}`)));
}

/**
 * 12:00 UTC, two weeks ago. Noon, so that advancing the clock by whole days never straddles a
 * UTC midnight and active-day counts stay the same on every run; two weeks back, so that a
 * scenario spanning several days still ends in the past, like real history.
 */
function defaultGenesisTime(): Date {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  return new Date(today - 14 * DAY_MS + DAY_MS / 2);
}

export async function startDevnetNode(opts: DevnetNodeOptions): Promise<DevnetNode> {
  const host = opts.host ?? '127.0.0.1';
  const privateKeys = devnetPrivateKeys(opts.seed ?? 'devnet');
  const unlocked = opts.unlockedAccounts ?? [];
  const server = ganache.server({
    logging: { quiet: true },
    // In memory rather than LevelDB in a temporary folder: mining is much faster (see memory-store.ts).
    database: { db: memoryStore() },
    // "merge" is the Paris fork, the EVM version the contracts are compiled for.
    chain: { chainId: DEVNET_CHAIN_ID, hardfork: 'merge', time: opts.genesisTime ?? defaultGenesisTime() },
    miner: {
      // Mine each transaction in its own block before eth_sendTransaction returns.
      instamine: 'eager',
      // Blocks 2 s apart, like Base, instead of wall-clock time: timestamps (and the
      // authorization windows signed from them) then come out the same on every run.
      timestampIncrement: 2,
      // ganache's default is a flat 90,000 gas for node-signed transactions, which a
      // transferWithAuthorization to a fresh payee can exceed.
      defaultTransactionGasLimit: 'estimate',
    },
    wallet: {
      accounts: privateKeys.map((secretKey) => ({ secretKey, balance: ETH_BALANCE })),
      unlockedAccounts: unlocked,
    },
  });
  await server.listen(opts.port, host);
  try {
    // Unlocked accounts that are not in `wallet.accounts` start with no ETH to pay gas with.
    for (const address of unlocked) {
      await server.provider.request({ method: 'evm_setAccountBalance', params: [address, toHex(ETH_BALANCE)] });
    }
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    rpcUrl: `http://${host}:${server.address().port}`,
    chainId: DEVNET_CHAIN_ID,
    accounts: privateKeys.map((key) => privateKeyToAccount(key)),
    close: () => server.close(),
  };
}

// The local chain for tests and the demo: a ganache node with our USDC look-alike deployed,
// USDC in every account but the deployer's, and real Base facilitator addresses unlocked.
import { parseUnits, type Address } from 'viem';
import { loadArtifact } from './artifacts.ts';
import { devnetClients } from './clients.ts';
import { knownFacilitators } from './facilitators.ts';
import { startDevnetNode, type DevnetNode } from './node.ts';

/** USDC (6 decimals) minted to each account except the deployer. */
export const INITIAL_USDC = parseUnits('10000', 6);
const FACILITATOR_COUNT = 3;

export interface DevnetOptions {
  /** 0 picks a free port; the chosen one is in rpcUrl. */
  port: number;
  host?: string;
  seed?: string;
  /** Pin it to get the same block timestamps and transaction hashes on every run. */
  genesisTime?: Date;
}

export interface Devnet extends DevnetNode {
  chainName: 'devnet';
  token: { address: Address; deployBlock: bigint };
  /** Known Base facilitators, unlocked and funded, so they can submit x402 payments. */
  facilitators: Address[];
}

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const facilitators = knownFacilitators('base').slice(0, FACILITATOR_COUNT);
  const node = await startDevnetNode({ ...opts, unlockedAccounts: facilitators });
  try {
    const { publicClient, walletClient } = devnetClients(node);
    const [deployer, ...holders] = node.accounts;
    const { abi, bytecode } = loadArtifact('Eip3009Token');
    const deployHash = await walletClient.deployContract({ abi, bytecode, account: deployer! });
    const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash });
    const token = deployed.contractAddress!;
    for (const holder of holders) {
      const hash = await walletClient.writeContract({
        account: deployer!,
        address: token,
        abi,
        functionName: 'mint',
        args: [holder.address, INITIAL_USDC],
      });
      await publicClient.waitForTransactionReceipt({ hash });
    }
    return { ...node, chainName: 'devnet', token: { address: token, deployBlock: deployed.blockNumber }, facilitators };
  } catch (err) {
    await node.close();
    throw err;
  }
}

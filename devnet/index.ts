// The local chain for tests and the demo: a ganache node with our USDC look-alike and the ERC-8004
// Identity and Reputation registries deployed, USDC in every account but the deployer's, and real
// Base facilitator addresses unlocked.
import { parseUnits, type Abi, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { loadArtifact } from './artifacts.ts';
import { devnetClients, type DevnetClients } from './clients.ts';
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

export interface DeployedContract {
  address: Address;
  deployBlock: bigint;
}

export interface Devnet extends DevnetNode {
  chainName: 'devnet';
  token: DeployedContract;
  /** ERC-8004 registries; the reputation registry reads agent owners from the identity registry. */
  identityRegistry: DeployedContract;
  reputationRegistry: DeployedContract;
  /** Stand-in for x402's Permit2 proxy: settlements for tokens without EIP-3009. */
  permit2Proxy: DeployedContract;
  /** Known Base facilitators, unlocked and funded, so they can submit x402 payments. */
  facilitators: Address[];
}

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const facilitators = knownFacilitators('base').slice(0, FACILITATOR_COUNT);
  const node = await startDevnetNode({ ...opts, unlockedAccounts: facilitators });
  try {
    const clients = devnetClients(node);
    const [deployer, ...holders] = node.accounts;
    // Deployed from the first account at nonces 0, 1, 2 and 3, so the seed fixes their addresses
    // (the shipped devnet chain profile lists them).
    const token = await deploy(clients, deployer!, loadArtifact('Eip3009Token'), []);
    const identityRegistry = await deploy(clients, deployer!, loadArtifact('IdentityRegistry'), []);
    const reputationRegistry = await deploy(clients, deployer!, loadArtifact('ReputationRegistry'), [identityRegistry.address]);
    const permit2Proxy = await deploy(clients, deployer!, loadArtifact('Permit2ProxyStandIn'), []);
    const { abi } = loadArtifact('Eip3009Token');
    for (const holder of holders) {
      const hash = await clients.walletClient.writeContract({
        account: deployer!,
        address: token.address,
        abi,
        functionName: 'mint',
        args: [holder.address, INITIAL_USDC],
      });
      await clients.publicClient.waitForTransactionReceipt({ hash });
    }
    return { ...node, chainName: 'devnet', token, identityRegistry, reputationRegistry, permit2Proxy, facilitators };
  } catch (err) {
    await node.close();
    throw err;
  }
}

async function deploy(
  { publicClient, walletClient }: DevnetClients,
  account: PrivateKeyAccount,
  artifact: { abi: Abi; bytecode: Hex },
  args: readonly unknown[],
): Promise<DeployedContract> {
  const hash = await walletClient.deployContract({ ...artifact, args, account });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  return { address: receipt.contractAddress!, deployBlock: receipt.blockNumber };
}

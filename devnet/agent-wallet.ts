// The EIP-712 proof a new payment wallet signs for IdentityRegistry.setAgentWallet: the same
// domain and type as the deployed ERC-8004 registry, so SDK-made signatures would verify too.
import type { Address, Hex, PrivateKeyAccount } from 'viem';

/** The registry refuses deadlines further than this past the block's timestamp. */
export const MAX_DEADLINE_DELAY_SECONDS = 300n;

const AGENT_WALLET_SET_TYPES = {
  AgentWalletSet: [
    { name: 'agentId', type: 'uint256' },
    { name: 'newWallet', type: 'address' },
    { name: 'owner', type: 'address' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export interface AgentWalletProof {
  /** The wallet that will receive the agent's payments; it signs. */
  wallet: PrivateKeyAccount;
  registry: Address;
  chainId: number;
  agentId: bigint;
  /** The agent's current owner, who sends the transaction. */
  owner: Address;
  /** Unix seconds. */
  deadline: bigint;
}

export function signAgentWallet(proof: AgentWalletProof): Promise<Hex> {
  return proof.wallet.signTypedData({
    domain: { name: 'ERC8004IdentityRegistry', version: '1', chainId: proof.chainId, verifyingContract: proof.registry },
    types: AGENT_WALLET_SET_TYPES,
    primaryType: 'AgentWalletSet',
    message: { agentId: proof.agentId, newWallet: proof.wallet.address, owner: proof.owner, deadline: proof.deadline },
  });
}

// x402 payments for tokens without EIP-3009, as the Permit2 proxy settles them: the payer has
// authorised the proxy (on the devnet, an ERC-20 approval stands in for the Permit2 signature)
// and a facilitator's transaction makes the proxy move the tokens and emit Settled(), or
// SettledWithPermit() for a settlement that carried an EIP-2612 permit.
import type { Address, PrivateKeyAccount, PublicClient, WalletClient } from 'viem';
import { loadArtifact } from './artifacts.ts';
import { confirm, type SentTransaction } from './x402.ts';

const token = loadArtifact('Eip3009Token').abi;
const proxy = loadArtifact('Permit2ProxyStandIn').abi;

export interface Permit2SettlementParams {
  publicClient: PublicClient;
  walletClient: WalletClient;
  token: Address;
  proxy: Address;
  payer: PrivateKeyAccount;
  to: Address;
  value: bigint;
  /** An unlocked facilitator (verified) or any other account (candidate only). */
  submitter: Address;
  /** Settle as the proxy's settleWithPermit does (event SettledWithPermit). */
  withPermit?: boolean;
}

export async function settleThroughPermit2Proxy(p: Permit2SettlementParams): Promise<SentTransaction> {
  await confirm(
    p.publicClient,
    await p.walletClient.writeContract({ chain: p.walletClient.chain, account: p.payer, address: p.token, abi: token, functionName: 'approve', args: [p.proxy, p.value] }),
  );
  const txHash = await p.walletClient.writeContract({
    chain: p.walletClient.chain,
    account: p.submitter,
    address: p.proxy,
    abi: proxy,
    functionName: p.withPermit ? 'settleWithPermit' : 'settle',
    args: [p.token, p.payer.address, p.to, p.value],
  });
  return confirm(p.publicClient, txHash);
}

// Sends token transfers the two ways the pipeline must tell apart: an x402 payment (EIP-3009
// authorization signed by the payer, submitted by a facilitator) and a plain ERC-20 transfer.
import {
  parseSignature,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { loadArtifact } from './artifacts.ts';

const { abi } = loadArtifact('Eip3009Token');

/** USDC's EIP-712 domain name and version, which x402 clients sign against. */
export const USDC_DOMAIN = { name: 'USD Coin', version: '2' } as const;

const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** Authorizations expire this long after the latest block, like x402's maxTimeoutSeconds. */
export const AUTHORIZATION_TTL_SECONDS = 600n;

export interface SentTransaction {
  txHash: Hash;
  blockNumber: bigint;
}

export interface PayWithAuthorizationParams {
  publicClient: PublicClient;
  walletClient: WalletClient;
  token: Address;
  payer: PrivateKeyAccount;
  to: Address;
  /** In token base units (6 decimals). */
  value: bigint;
  /** Submits the transaction; must be unlocked on the node, as it signs nothing itself. */
  facilitator: Address;
  /** Defaults to 32 random bytes, as x402 clients do. */
  nonce?: Hex;
}

/** What a payer signs: an EIP-3009 authorization for `value` from them to `to`. */
export interface AuthorizationParams {
  payer: PrivateKeyAccount;
  token: Address;
  chainId: number;
  to: Address;
  value: bigint;
  /** Unix seconds; the authorization is valid strictly before it. */
  validBefore: bigint;
  nonce: Hex;
}

/** The arguments of `transferWithAuthorization` for a payer's signed authorization. */
export async function signAuthorization(params: AuthorizationParams) {
  const { payer, token, chainId, to, value, validBefore, nonce } = params;
  const message = { from: payer.address, to, value, validAfter: 0n, validBefore, nonce };
  const signature = await payer.signTypedData({
    domain: { ...USDC_DOMAIN, chainId, verifyingContract: token },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const { r, s, yParity } = parseSignature(signature);
  return [message.from, to, value, message.validAfter, validBefore, nonce, 27 + yParity, r, s] as const;
}

/** An x402 payment: one transaction emitting AuthorizationUsed then Transfer, sent by `facilitator`. */
export async function payWithAuthorization(params: PayWithAuthorizationParams): Promise<SentTransaction> {
  const { publicClient, walletClient, token, payer, to, value, facilitator } = params;
  const [chainId, latest] = await Promise.all([publicClient.getChainId(), publicClient.getBlock()]);
  const args = await signAuthorization({
    payer,
    token,
    chainId,
    to,
    value,
    validBefore: latest.timestamp + AUTHORIZATION_TTL_SECONDS,
    nonce: params.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  });
  // Simulate first, as a facilitator verifies before settling: ganache rejects a failing
  // node-signed transaction with a generic error, the simulation reports the contract's reason.
  const { request } = await publicClient.simulateContract({
    // A plain address as `account` makes viem use eth_sendTransaction, so the node signs for it.
    account: facilitator,
    address: token,
    abi,
    functionName: 'transferWithAuthorization',
    args,
  });
  return confirm(publicClient, await walletClient.writeContract({ ...request, chain: walletClient.chain }));
}

export interface PlainTransferParams {
  publicClient: PublicClient;
  walletClient: WalletClient;
  token: Address;
  from: PrivateKeyAccount;
  to: Address;
  value: bigint;
}

/** An ordinary ERC-20 transfer signed and sent by the holder: a Transfer log and nothing else. */
export async function plainTransfer(params: PlainTransferParams): Promise<SentTransaction> {
  const { publicClient, walletClient, token, from, to, value } = params;
  const txHash = await walletClient.writeContract({
    chain: walletClient.chain,
    account: from,
    address: token,
    abi,
    functionName: 'transfer',
    args: [to, value],
  });
  return confirm(publicClient, txHash);
}

export async function confirm(publicClient: PublicClient, txHash: Hash): Promise<SentTransaction> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== 'success') throw new Error(`transaction ${txHash} reverted`);
  return { txHash, blockNumber: receipt.blockNumber };
}

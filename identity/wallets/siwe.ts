// Sign-In with Ethereum (EIP-4361) messages through viem's SIWE helpers, and the check of their
// signatures: an EOA's by recovering the signer locally (no RPC), a contract wallet's on the chain
// the message names, through a public client of that chain: ERC-1271 `isValidSignature` of a
// deployed wallet, ERC-6492 for one not deployed yet (its signature carries the factory call that
// would deploy it; viem runs it inside an eth_call of the universal validator, nothing is sent).
// A chain without an RPC URL here verifies EOAs only.
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  defineChain,
  getAddress,
  hashMessage,
  http,
  isErc6492Signature,
  parseAbi,
  recoverMessageAddress,
  size,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';

export type ClaimMethod = 'siwe-eoa' | 'siwe-erc1271' | 'siwe-erc6492' | 'siws';

/** The fields of a challenge message that the claim checks against the stored challenge. */
export interface SignedFields {
  domain: string;
  uri: string;
  nonce: string;
  address: string;
}

/** EVM chains whose contract wallets can be verified: a public client per chain id. */
export type EvmChainClients = ReadonlyMap<number, PublicClient>;

/** A public client per configured chain with an RPC URL (config.chains), for claim verification. */
export function evmChainClients(chains: readonly { name: string; chainId: number; rpcUrl?: string; rpcTimeoutMs: number }[]): EvmChainClients {
  const clients = new Map<number, PublicClient>();
  for (const c of chains) {
    if (!c.rpcUrl || clients.has(c.chainId)) continue;
    const chain = defineChain({ id: c.chainId, name: c.name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } });
    // A claim waits on these calls: one retry, the chain's own timeout.
    clients.set(c.chainId, createPublicClient({ chain, transport: http(c.rpcUrl, { timeout: c.rpcTimeoutMs, retryCount: 1 }) }));
  }
  return clients;
}

export interface SiweChallengeInput {
  /** The service's public address (PUBLIC_BASE_URL): its host is the domain, itself the URI. */
  serviceBaseUrl: string;
  address: string;
  chainId: number;
  statement: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

export function createSiweChallenge(c: SiweChallengeInput): string {
  const base = new URL(c.serviceBaseUrl);
  return createSiweMessage({
    // EIP-4361 reads a message without a scheme as https: a service on plain http says so.
    ...(base.protocol === 'http:' ? { scheme: 'http' } : {}),
    domain: base.host,
    address: getAddress(c.address),
    statement: c.statement,
    uri: c.serviceBaseUrl,
    version: '1',
    chainId: c.chainId,
    nonce: c.nonce,
    issuedAt: c.issuedAt,
    expirationTime: c.expiresAt,
  });
}

/** The fields of a SIWE message, or null when the text is not one. */
export function parseSiweFields(text: string): (SignedFields & { chainId: number; scheme?: string }) | null {
  if (!/^(?:[a-zA-Z][a-zA-Z0-9+\-.]*:\/\/)?\S+ wants you to sign in with your Ethereum account:\n/.test(text)) return null;
  const m = parseSiweMessage(text);
  if (!m.domain || !m.address || !m.uri || !m.nonce || m.chainId === undefined || m.version !== '1') return null;
  return { domain: m.domain, uri: m.uri, nonce: m.nonce, address: m.address, chainId: m.chainId, ...(m.scheme ? { scheme: m.scheme } : {}) };
}

/** An EVM signature as the claim takes it: 0x and an even number of hex digits; null otherwise. */
export function parseEvmSignature(text: string): Hex | null {
  return /^0x(?:[0-9a-fA-F]{2})+$/.test(text) ? (text as Hex) : null;
}

export type EvmVerification = { valid: true; method: ClaimMethod } | { valid: false; reason: string };

/** The chain named by the message could not be asked (its RPC failed): the claim may be retried. */
export class ChainUnavailableError extends Error {
  override name = 'ChainUnavailableError';
}

/**
 * Whether `signature` is `address`'s over the EIP-191 hash of `message`, and how: an EOA first
 * (locally), else a contract wallet on chain `chainId` when `clients` has it.
 */
export async function verifyEvmSignature(input: { message: string; signature: Hex; address: string; chainId: number; clients: EvmChainClients }): Promise<EvmVerification> {
  const address = getAddress(input.address);
  const wrapped = isErc6492Signature(input.signature);
  let recovered: Address | null = null;
  if (!wrapped && size(input.signature) === 65) {
    recovered = await recoverMessageAddress({ message: input.message, signature: input.signature }).catch(() => null);
    if (recovered === address) return { valid: true, method: 'siwe-eoa' };
  }
  const notTheSigner = recovered ? `it was made by ${recovered}, not ${address}` : `it is not a signature of ${address}`;
  const client = input.clients.get(input.chainId);
  if (!client) {
    const configured = [...input.clients].sort(([x], [y]) => x - y).map(([id, c]) => `${id} (${c.chain?.name ?? 'unnamed'})`).join(', ') || 'none';
    return {
      valid: false,
      reason:
        wrapped || size(input.signature) !== 65
          ? `this looks like a contract wallet's signature (ERC-1271/ERC-6492), and chain ${input.chainId} has no RPC URL configured on this service, so only EOA signatures are verified for it (chains that verify contract wallets: ${configured})`
          : `the signature does not verify: ${notTheSigner}. Chain ${input.chainId} has no RPC URL configured on this service, so a contract wallet cannot be verified on it, only an EOA (chains that verify contract wallets: ${configured})`,
    };
  }
  let deployed: boolean;
  try {
    const code = await client.getCode({ address });
    deployed = code !== undefined && code !== '0x';
  } catch (err) {
    throw new ChainUnavailableError(`chain ${input.chainId} did not answer (${(err as Error).message.split('\n')[0]})`);
  }
  if (!deployed && !wrapped) {
    return { valid: false, reason: `the signature does not verify: ${notTheSigner}, and no contract is deployed at ${address} on chain ${input.chainId} (an undeployed contract wallet signs with an ERC-6492 signature)` };
  }
  const hash = hashMessage(input.message);
  let valid: boolean;
  try {
    valid = deployed && !wrapped ? await erc1271Accepts(client, address, hash, input.signature) : await client.verifyHash({ address, hash, signature: input.signature });
    // verifyHash answers false for a call that failed on the way too: a chain that cannot answer an
    // eth_call now (rate limits are per method at some providers) must not read as a bad signature
    // (the claim is retried, the nonce unspent). A trivial eth_call tells which it was.
    if (!valid && !(deployed && !wrapped)) await client.call({ to: address });
  } catch (err) {
    throw new ChainUnavailableError(`chain ${input.chainId} did not answer (${(err as Error).message.split('\n')[0]})`);
  }
  if (!valid) return { valid: false, reason: `the signature does not verify: the contract wallet ${address} on chain ${input.chainId} does not accept it (ERC-${deployed ? '1271' : '6492'})` };
  return { valid: true, method: deployed ? 'siwe-erc1271' : 'siwe-erc6492' };
}

const erc1271Abi = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)']);
const erc1271Magic = '0x1626ba7e';

// ERC-1271 asked directly: a revert or another answer is a refusal; a call that did not reach the
// contract (HTTP error, rate limit, timeout) is thrown, for the caller to answer 503.
async function erc1271Accepts(client: PublicClient, address: Address, hash: Hex, signature: Hex): Promise<boolean> {
  try {
    return (await client.readContract({ address, abi: erc1271Abi, functionName: 'isValidSignature', args: [hash, signature] })) === erc1271Magic;
  } catch (err) {
    // A revert, or a contract that answers nothing (a wallet without ERC-1271: no fallback), refuses.
    if (err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError)) return false;
    throw err;
  }
}

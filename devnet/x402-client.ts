// What the registry's x402 packages need to know to pay and charge on the devnet, which none of
// them ships as a default: its CAIP-2 network (`eip155:<chainId>`), the token as an explicit asset
// with its EIP-712 domain, and (for payers) the token opted in to @x402/core's spend controls.
import type { AssetAmount, Network } from '@x402/core/types';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { ClientEvmSigner } from '@x402/evm';
import { getAddress, type Address } from 'viem';
import { USDC_DOMAIN } from './x402.ts';

/** The devnet as an x402 v2 network: CAIP-2, `eip155:1337` for the default devnet. */
export function devnetX402Network(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`;
}

/**
 * A price in the devnet's USDC look-alike, in base units (6 decimals): an explicit AssetAmount,
 * because @x402/evm's "$0.01" money prices resolve only for networks with a default asset
 * (Base, Base Sepolia, ...), and it carries the EIP-712 domain the payer signs against and the
 * facilitator verifies with ("USD Coin" / "2", as on Base).
 */
export function devnetUsdcPrice(token: Address, amount: bigint): AssetAmount {
  return { amount: amount.toString(), asset: getAddress(token), extra: { ...USDC_DOMAIN } };
}

export interface DevnetPayerOptions {
  chainId: number;
  token: Address;
  /** The most one payment may cost, in token base units (default 1 USDC). */
  maxAmountPerPayment?: bigint;
  /** The fetch to wrap (default globalThis.fetch): e.g. one that adds identity headers. */
  fetch?: typeof globalThis.fetch;
}

/**
 * An x402 client for the devnet: @x402/evm's exact client scheme on `eip155:<chainId>`, signing
 * EIP-3009 authorizations with `signer` (a viem local account), the devnet token allowed by the
 * spend controls (by default they allow only the packages' known assets, so an unknown token would
 * be refused before signing) up to `maxAmountPerPayment`.
 */
export function devnetX402Client(signer: ClientEvmSigner, opts: Omit<DevnetPayerOptions, 'fetch'>): x402Client {
  const network: Network = devnetX402Network(opts.chainId);
  return new x402Client().register(network, new ExactEvmScheme(signer)).setSpendControls({
    allowedAssets: [{ network, asset: getAddress(opts.token), maxAmountPerPayment: (opts.maxAmountPerPayment ?? 1_000_000n).toString() }],
  });
}

/** A fetch that answers a 402 by paying with `signer` on the devnet and retrying (@x402/fetch). */
export function devnetPayingFetch(signer: ClientEvmSigner, opts: DevnetPayerOptions): typeof globalThis.fetch {
  return wrapFetchWithPayment(opts.fetch ?? globalThis.fetch, devnetX402Client(signer, opts)) as typeof globalThis.fetch;
}

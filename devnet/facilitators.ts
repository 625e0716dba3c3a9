// Known x402 facilitator signer addresses, from the list the pipeline also uses for verification.
import { getAddress, type Address } from 'viem';
import { loadFacilitators } from '../pipeline/chain/facilitators.ts';

/** EVM facilitator addresses of one network (e.g. "base"), in file order. */
export function knownFacilitators(network: string): Address[] {
  return loadFacilitators()
    .filter((f) => f.network === network)
    .map((f) => getAddress(f.address));
}

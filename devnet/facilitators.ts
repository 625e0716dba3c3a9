// Known x402 facilitator signer addresses, from the list the pipeline also uses for verification.
import { readFileSync } from 'node:fs';
import { getAddress, type Address } from 'viem';

const csvPath = new URL('../pipeline/chain/facilitators.csv', import.meta.url);

/** EVM facilitator addresses of one network (e.g. "base"), in file order. */
export function knownFacilitators(network: string): Address[] {
  const [header, ...rows] = readFileSync(csvPath, 'utf8').trim().split(/\r?\n/);
  const columns = header!.split(',');
  const networkAt = columns.indexOf('network');
  const addressAt = columns.indexOf('address');
  return rows
    .map((row) => row.split(','))
    .filter((cells) => cells[networkAt] === network)
    .map((cells) => getAddress(cells[addressAt]!));
}

// Known x402 facilitator signers, shipped as facilitators.csv (a copy of x402scan's public list).
// A payment transaction sent by one of them is "verified".
import { readFileSync } from 'node:fs';
import type { WriteTx } from '../store/group-commit.ts';

export interface Facilitator {
  network: string;
  address: string;
  facilitatorId: string;
}

const csvFile = new URL('./facilitators.csv', import.meta.url);

let shipped: Facilitator[] | null = null;

/** The shipped list, read once per process. */
export function loadFacilitators(): Facilitator[] {
  return (shipped ??= parseFacilitators(readFileSync(csvFile, 'utf8')));
}

function parseFacilitators(text: string): Facilitator[] {
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const columns = header!.split(',');
  const at = (name: string) => columns.indexOf(name);
  return lines.map((line) => {
    const cells = line.split(',');
    const network = cells[at('network')]!;
    const address = cells[at('address')]!;
    // EVM addresses compare lowercased; Solana keys are case-sensitive and kept verbatim.
    return { network, address: address.startsWith('0x') ? address.toLowerCase() : address, facilitatorId: cells[at('id')]! };
  });
}

/** Replaces the facilitators table with the shipped list, inside the caller's transaction. */
export async function refreshFacilitators(tx: WriteTx, list = loadFacilitators()): Promise<void> {
  await tx.run('DELETE FROM facilitators');
  await tx.append('facilitators', list.map((f) => [f.network, f.address, f.facilitatorId]));
}

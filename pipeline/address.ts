// Wallet addresses as the service understands them: EVM (0x + 40 hex, stored lowercased) and
// Solana (base58 of a 32-byte public key, kept verbatim because base58 is case-sensitive).
import bs58 from 'bs58';

export type AddressFamily = 'evm' | 'solana';
export interface ParsedAddress {
  family: AddressFamily;
  address: string;
}

export const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/;
export const solanaAddressPattern = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Detects the family from the form and normalises; null when it is neither. */
export function parseAddress(raw: string): ParsedAddress | null {
  const text = raw.trim();
  if (evmAddressPattern.test(text)) return { family: 'evm', address: text.toLowerCase() };
  if (solanaAddressPattern.test(text) && bs58.decode(text).length === 32) return { family: 'solana', address: text };
  return null;
}

/** The EVM zero address: no key controls it, so it never signs (a wallet rule of spec 4.8). */
export function isZeroEvmAddress(address: string): boolean {
  return /^0x0{40}$/i.test(address);
}

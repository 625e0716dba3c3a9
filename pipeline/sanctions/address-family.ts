// The address family of a listed address (the key lookups use), from its form and OFAC's label.
// The label alone is not enough: USDT appears in Tron, EVM and Bitcoin (Omni) form, and one
// XBT-labelled address is a Tron address. So a form that belongs to one family decides first
// (EVM, Tron, bech32 bc1); then the label of a currency with its own chain (its legacy
// Bitcoin-style forms are shared with Bitcoin: BCH and BSV addresses starting with 1 are
// still BCH and BSV listings); then the remaining forms (Bitcoin legacy, Solana key); then the
// label's usual family.
import { createHash } from 'node:crypto';
import bs58 from 'bs58';

export const sanctionsFamilies = [
  'evm',
  'solana',
  'tron',
  'bitcoin',
  'bitcoin-cash',
  'bitcoin-sv',
  'bitcoin-gold',
  'litecoin',
  'dash',
  'zcash',
  'monero',
  'xrp',
  'verge',
  'unknown',
] as const;
export type SanctionsFamily = (typeof sanctionsFamilies)[number];

const ownChainOfLabel: Record<string, SanctionsFamily> = {
  BCH: 'bitcoin-cash',
  BSV: 'bitcoin-sv',
  BTG: 'bitcoin-gold',
  DASH: 'dash',
  LTC: 'litecoin',
  SOL: 'solana',
  XMR: 'monero',
  XRP: 'xrp',
  XVG: 'verge',
  ZEC: 'zcash',
};

// Used only when no form matched, e.g. a malformed address under a known label.
const usualFamilyOfLabel: Record<string, SanctionsFamily> = {
  ARB: 'evm',
  BSC: 'evm',
  ETC: 'evm',
  ETH: 'evm',
  TRX: 'tron',
  XBT: 'bitcoin',
};

const evmForm = /^0x[0-9a-fA-F]{40}$/;
const base58Form = /^[1-9A-HJ-NP-Za-km-z]+$/;
// BIP-173: bech32 is case-insensitive but never mixed-case.
const bech32BitcoinForm = /^(bc1[02-9ac-hj-np-z]{8,87}|BC1[02-9AC-HJ-NP-Z]{8,87})$/;
// Other forms on the same alphabet and rule, told apart by the label (LTC, BCH): Litecoin's bech32,
// and Bitcoin Cash's CashAddr, listed without its `bitcoincash:` prefix (the BCH list has six),
// which a wallet may show with it.
const bech32LitecoinForm = /^(ltc1[02-9ac-hj-np-z]{8,86}|LTC1[02-9AC-HJ-NP-Z]{8,86})$/;
const cashAddrForm = /^(?:bitcoincash:)?([qpzr][02-9ac-hj-np-z]{41,111})$|^(?:BITCOINCASH:)?([QPZR][02-9AC-HJ-NP-Z]{41,111})$/;

const tronVersion = 0x41;
const bitcoinP2pkhVersion = 0x00;
const bitcoinP2shVersion = 0x05;

export interface FamilyAddress {
  family: SanctionsFamily;
  address: string;
}

/** The key of a listed (family, address): what a lookup finds and a refresh counts. */
export function listingKey(family: string, address: string): string {
  return `${family}\u0000${address}`;
}

export function familyOfListed(label: string, published: string): FamilyAddress {
  const address = normaliseAddress(published);
  return { family: familyOf(label, address), address };
}

/**
 * The form lookups compare: EVM, bech32 and CashAddr (case-insensitive) lowercased, CashAddr
 * without its prefix; others (base58 and the rest, case-sensitive) verbatim.
 */
export function normaliseAddress(raw: string): string {
  const address = raw.trim();
  if (evmForm.test(address) || bech32BitcoinForm.test(address) || bech32LitecoinForm.test(address)) return address.toLowerCase();
  const cashAddr = cashAddrForm.exec(address);
  return cashAddr ? (cashAddr[1] ?? cashAddr[2]!).toLowerCase() : address;
}

function familyOf(label: string, address: string): SanctionsFamily {
  if (evmForm.test(address)) return 'evm';
  const versioned = base58CheckVersion(address);
  if (versioned === tronVersion) return 'tron';
  if (bech32BitcoinForm.test(address)) return 'bitcoin';
  const ownChain = ownChainOfLabel[label];
  if (ownChain) return ownChain;
  if (versioned === bitcoinP2pkhVersion || versioned === bitcoinP2shVersion) return 'bitcoin';
  if (isSolanaKey(address)) return 'solana';
  return usualFamilyOfLabel[label] ?? 'unknown';
}

/** The version byte of a valid 25-byte base58check address (a 20-byte hash), else null. */
function base58CheckVersion(address: string): number | null {
  if (!base58Form.test(address) || address.length < 26 || address.length > 35) return null;
  const bytes = bs58.decode(address);
  if (bytes.length !== 25) return null;
  const payload = bytes.subarray(0, 21);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return Buffer.from(checksum).equals(Buffer.from(bytes.subarray(21))) ? payload[0]! : null;
}

function isSolanaKey(address: string): boolean {
  return base58Form.test(address) && address.length >= 32 && address.length <= 44 && bs58.decode(address).length === 32;
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

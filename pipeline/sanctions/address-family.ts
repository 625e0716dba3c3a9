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

/**
 * The key of a listed (family, address): what a lookup finds and a refresh counts. Where a family
 * spells one address two ways, both spellings get one key, so a wallet that shows the other
 * spelling than OFAC published is still found (screeningForm).
 */
export function listingKey(family: string, address: string): string {
  return `${family}\u0000${screeningForm(family, address)}`;
}

/**
 * One form for the spellings of one address: Bitcoin Cash's legacy base58 and CashAddr (also the
 * CashTokens-aware `z`/`r` types), and Litecoin's P2SH under its old version byte (`3…`, Bitcoin's)
 * and its own (`M…`): the kind of hash and the hash. Anything else, or a spelling whose checksum
 * fails, is its (normalised) self.
 */
function screeningForm(family: string, address: string): string {
  const kinds = legacyKinds[family];
  if (!kinds) return address;
  const legacy = base58Check(address);
  const kind = legacy && kinds[legacy.version];
  const hashed = legacy ? (kind ? { kind, hash: legacy.hash } : null) : family === 'bitcoin-cash' ? cashAddrHash(address) : null;
  return hashed ? `${hashed.kind}:${Buffer.from(hashed.hash).toString('hex')}` : address;
}

type HashKind = 'p2pkh' | 'p2sh';

// Version bytes of the base58check spellings, by what they pay to.
const legacyKinds: Record<string, Record<number, HashKind>> = {
  'bitcoin-cash': { 0x00: 'p2pkh', 0x05: 'p2sh' },
  litecoin: { 0x30: 'p2pkh', 0x05: 'p2sh', 0x32: 'p2sh' },
};

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
  const versioned = base58Check(address)?.version;
  if (versioned === tronVersion) return 'tron';
  if (bech32BitcoinForm.test(address)) return 'bitcoin';
  const ownChain = ownChainOfLabel[label];
  if (ownChain) return ownChain;
  if (versioned === bitcoinP2pkhVersion || versioned === bitcoinP2shVersion) return 'bitcoin';
  if (isSolanaKey(address)) return 'solana';
  return usualFamilyOfLabel[label] ?? 'unknown';
}

/** The version byte and 20-byte hash of a valid 25-byte base58check address, else null. */
function base58Check(address: string): { version: number; hash: Uint8Array } | null {
  if (!base58Form.test(address) || address.length < 26 || address.length > 35) return null;
  const bytes = bs58.decode(address);
  if (bytes.length !== 25) return null;
  const payload = bytes.subarray(0, 21);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return Buffer.from(checksum).equals(Buffer.from(bytes.subarray(21))) ? { version: payload[0]!, hash: payload.subarray(1) } : null;
}

const cashAddrCharset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const cashAddrHashBits = [160, 192, 224, 256, 320, 384, 448, 512];

/**
 * The kind and hash of a mainnet CashAddr (normalised: lowercase, without its prefix), checksum
 * checked, as the CashAddr specification (bitcoincash.org, "cashaddr.md") defines them; else null.
 */
function cashAddrHash(address: string): { kind: HashKind; hash: Uint8Array } | null {
  const symbols = [...address].map((c) => cashAddrCharset.indexOf(c));
  if (symbols.length < 9 || symbols.includes(-1)) return null;
  const prefix = [...'bitcoincash'].map((c) => c.charCodeAt(0) & 0x1f);
  if (cashAddrPolymod([...prefix, 0, ...symbols]) !== 0n) return null;
  // The payload's 5-bit groups as bytes; the padding left over must be zeros.
  let acc = 0;
  let bits = 0;
  const bytes: number[] = [];
  for (const symbol of symbols.slice(0, -8)) {
    acc = ((acc << 5) | symbol) & 0xfff; // at most 7 bits left over and 5 new
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) return null;
  const [version, ...hash] = bytes;
  // Bit 7 reserved; type 0 P2PKH, 1 P2SH, 2 and 3 the same with CashTokens; the low bits the size.
  if (version === undefined || version & 0x80 || hash.length * 8 !== cashAddrHashBits[version & 0x07]) return null;
  const type = (version >> 3) & 0x0f;
  if (type > 3) return null;
  return { kind: type % 2 === 0 ? 'p2pkh' : 'p2sh', hash: Uint8Array.from(hash) };
}

function cashAddrPolymod(values: number[]): bigint {
  const generators = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    generators.forEach((g, i) => {
      if ((c0 >> BigInt(i)) & 1n) c ^= g;
    });
  }
  return c ^ 1n;
}

function isSolanaKey(address: string): boolean {
  return base58Form.test(address) && address.length >= 32 && address.length <= 44 && bs58.decode(address).length === 32;
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

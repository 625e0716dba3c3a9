// The identity a buyer agent presents (spec 5.4, 5.6): `X-Operator-Token` first, else
// `X-Wallet-Address` (EVM compared lowercased, Solana verbatim). A wallet header that is no
// address counts as no identity (its message says so); the service never sees it.
import type { HeaderBag, Network } from './types.ts';

export const operatorTokenHeader = 'X-Operator-Token';
export const walletAddressHeader = 'X-Wallet-Address';

export type Presented =
  | { mode: 'operator_token'; token: string }
  | { mode: 'wallet'; network: Network; address: string }
  /** `malformed`: an X-Wallet-Address that is not an address (quoted in the denial's message). */
  | { mode: 'none'; malformed?: string };

/** One header's value from a Fetch `Headers` or a header record, any case of the name; repeated: the first. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return value === null ? undefined : firstOf(value);
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const lower = name.toLowerCase();
  const key = lower in record ? lower : Object.keys(record).find((k) => k.toLowerCase() === lower);
  const value = key === undefined ? undefined : record[key];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value[0] : firstOf(value);
}

// Fetch's Headers joins repeated headers with ", ": an identity is one value.
function firstOf(value: string): string {
  const comma = value.indexOf(',');
  return (comma === -1 ? value : value.slice(0, comma)).trim();
}

export function presentedIdentity(headers: HeaderBag): Presented {
  const token = headerValue(headers, operatorTokenHeader)?.trim();
  if (token) return { mode: 'operator_token', token };
  const raw = headerValue(headers, walletAddressHeader)?.trim();
  if (!raw) return { mode: 'none' };
  const wallet = parseWallet(raw);
  return wallet ? { mode: 'wallet', ...wallet } : { mode: 'none', malformed: raw.slice(0, 100) };
}

/** An EVM address (lowercased; never the zero address) or a Solana public key (base58 of 32 bytes, verbatim). */
export function parseWallet(raw: string): { network: Network; address: string } | null {
  if (/^0[xX][0-9a-fA-F]{40}$/.test(raw)) {
    const address = `0x${raw.slice(2).toLowerCase()}`;
    return /^0x0{40}$/.test(address) ? null : { network: 'evm', address };
  }
  return base58Length(raw) === 32 ? { network: 'solana', address: raw } : null;
}

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** How many bytes a base58 string decodes to; null when it is not base58. */
export function base58Length(text: string): number | null {
  if (text.length === 0 || text.length > 64) return null;
  let value = 0n;
  for (const char of text) {
    const digit = base58Alphabet.indexOf(char);
    if (digit === -1) return null;
    value = value * 58n + BigInt(digit);
  }
  let leadingZeros = 0;
  while (leadingZeros < text.length && text[leadingZeros] === '1') leadingZeros++;
  let bytes = 0;
  while (value > 0n) {
    value >>= 8n;
    bytes++;
  }
  return leadingZeros + bytes;
}

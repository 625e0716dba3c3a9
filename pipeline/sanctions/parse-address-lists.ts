// The per-currency lists of 0xB10C/ofac-sanctioned-digital-currency-addresses: files
// `sanctioned_addresses_<LABEL>.txt` (one address a line) and `.json` (an array of strings),
// extracted nightly from sdn_advanced.xml. They carry neither the SDN entry id nor a date, so
// their addresses come out with sdnUid '' and listedAt null.
import { z } from 'zod';
import type { ListedAddress } from './listing.ts';

const fileNamePattern = /^sanctioned_addresses_([A-Z0-9]+)\.(txt|json)$/;
const jsonList = z.array(z.string());

export interface AddressListFile {
  name: string;
  text: string;
}

/** The currency label and format of a list file, or null for any other file. */
export function addressListFileName(name: string): { label: string; format: 'txt' | 'json' } | null {
  const match = fileNamePattern.exec(name);
  return match ? { label: match[1]!, format: match[2] as 'txt' | 'json' } : null;
}

export function parseAddressList(name: string, text: string): ListedAddress[] {
  const file = addressListFileName(name);
  if (!file) throw new Error(`${name} is not named sanctioned_addresses_<LABEL>.txt or .json`);
  return (file.format === 'json' ? parseJsonList(name, text) : text.split(/\r?\n/))
    .map((address) => address.trim())
    .filter((address) => address !== '')
    .map((address) => ({ sdnUid: '', label: file.label, address, listedAt: null }));
}

/** All lists of a directory listing; a label published in both formats must agree. */
export function parseAddressLists(files: AddressListFile[]): ListedAddress[] {
  const byLabel = new Map<string, ListedAddress[]>();
  for (const { name, text } of files) {
    const file = addressListFileName(name);
    if (!file) continue;
    const addresses = parseAddressList(name, text);
    const other = byLabel.get(file.label);
    if (other && !sameAddresses(other, addresses)) {
      throw new Error(`sanctioned_addresses_${file.label}.txt and .json list different addresses`);
    }
    byLabel.set(file.label, addresses);
  }
  if (byLabel.size === 0) throw new Error('no sanctioned_addresses_<LABEL>.txt or .json files');
  return [...byLabel.values()].flat();
}

function parseJsonList(name: string, text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`);
  }
  const parsed = jsonList.safeParse(value);
  if (!parsed.success) throw new Error(`${name}: expected a JSON array of address strings`);
  return parsed.data;
}

function sameAddresses(a: ListedAddress[], b: ListedAddress[]): boolean {
  const left = new Set(a.map((x) => x.address));
  const right = new Set(b.map((x) => x.address));
  return left.size === right.size && [...left].every((x) => right.has(x));
}

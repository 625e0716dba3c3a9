// SANCTIONS_LIST_SOURCE names one place; its form says which format it is:
//   *.xml (file or https URL)       OFAC's sdn_advanced.xml, the authoritative format
//   *.csv (file or https URL)       OFAC's legacy sdn.csv, with sdn_comments.csv beside it when present
//   a folder                        per-currency address lists (sanctioned_addresses_<CUR>.txt/.json),
//                                   with address-first-seen.csv from the folder above when present
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SanctionsSource } from './read-listings.ts';

export class SanctionsSourceError extends Error {
  override name = 'SanctionsSourceError';
}

export function sanctionsSourceFromSetting(value: string): SanctionsSource {
  const isUrl = /^https?:\/\//i.test(value);
  const lower = value.toLowerCase().split('?')[0]!;
  if (lower.endsWith('.xml')) return { kind: 'sdn-advanced-xml', file: value };
  if (lower.endsWith('.csv')) {
    const comments = isUrl ? null : path.join(path.dirname(value), 'sdn_comments.csv');
    return { kind: 'sdn-csv', sdnFile: value, ...(comments && existsSync(comments) ? { commentsFile: comments } : {}) };
  }
  if (!isUrl && existsSync(value) && statSync(value).isDirectory()) {
    const firstSeen = path.join(path.dirname(path.resolve(value)), 'address-first-seen.csv');
    return { kind: 'address-lists', dir: value, ...(existsSync(firstSeen) ? { firstSeenFile: firstSeen } : {}) };
  }
  throw new SanctionsSourceError(`SANCTIONS_LIST_SOURCE ${value} is neither an .xml or .csv file/URL nor a folder of address lists`);
}

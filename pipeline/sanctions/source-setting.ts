// SANCTIONS_LIST_SOURCE names one place; its form says which format it is:
//   *.xml (file or https URL)       OFAC's sdn_advanced.xml, the authoritative format
//   *.csv (file or https URL)       OFAC's legacy sdn.csv, with sdn_comments.csv beside it when present
//   a folder                        per-currency address lists (sanctioned_addresses_<CUR>.txt/.json),
//                                   with address-first-seen.csv from the folder above when present
//
// The SDN names screened at identity verification come from SANCTIONS_NAMES_SOURCE when it is set
// (an .xml, or an sdn.csv with alt.csv beside it when present), otherwise from
// SANCTIONS_LIST_SOURCE itself when it is an .xml or sdn.csv; a folder of address lists has none.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SanctionsSource } from './read-listings.ts';
import type { NamesSource } from './read-names.ts';

export class SanctionsSourceError extends Error {
  override name = 'SanctionsSourceError';
}

export function sanctionsSourceFromSetting(value: string): SanctionsSource {
  const { form, isUrl } = formOf(value);
  if (form === 'xml') return { kind: 'sdn-advanced-xml', file: value };
  if (form === 'csv') {
    const comments = isUrl ? null : path.join(path.dirname(value), 'sdn_comments.csv');
    return { kind: 'sdn-csv', sdnFile: value, ...(comments && existsSync(comments) ? { commentsFile: comments } : {}) };
  }
  if (!isUrl && existsSync(value) && statSync(value).isDirectory()) {
    const firstSeen = path.join(path.dirname(path.resolve(value)), 'address-first-seen.csv');
    return { kind: 'address-lists', dir: value, ...(existsSync(firstSeen) ? { firstSeenFile: firstSeen } : {}) };
  }
  throw new SanctionsSourceError(`SANCTIONS_LIST_SOURCE ${value} is neither an .xml or .csv file/URL nor a folder of address lists`);
}

/** Where the names come from (see the header), or null when neither setting has names. */
export function namesSourceFromSettings(listSource: string, namesSource: string | undefined): NamesSource | null {
  if (namesSource === undefined) return namesSourceOf(listSource);
  const source = namesSourceOf(namesSource);
  if (!source) throw new SanctionsSourceError(`SANCTIONS_NAMES_SOURCE ${namesSource} is neither an .xml (sdn_advanced.xml) nor a .csv (sdn.csv) file/URL`);
  return source;
}

function namesSourceOf(value: string): NamesSource | null {
  const { form, isUrl } = formOf(value);
  if (form === 'xml') return { kind: 'sdn-advanced-xml', file: value };
  if (form !== 'csv') return null;
  const alt = isUrl ? null : path.join(path.dirname(value), 'alt.csv');
  return { kind: 'sdn-csv', sdnFile: value, ...(alt && existsSync(alt) ? { altFile: alt } : {}) };
}

function formOf(value: string): { form: 'xml' | 'csv' | null; isUrl: boolean } {
  const lower = value.toLowerCase().split('?')[0]!;
  return { form: lower.endsWith('.xml') ? 'xml' : lower.endsWith('.csv') ? 'csv' : null, isUrl: /^https?:\/\//i.test(value) };
}

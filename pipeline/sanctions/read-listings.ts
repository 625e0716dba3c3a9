// Reads a sanctions list source of any kind into listed addresses and one sha256 over its content.
// A single file's hash is its plain sha256 (what `sha256sum` prints); a source of several files
// (sdn.csv + sdn_comments.csv, a directory of lists, a first-seen file) hashes the list of
// `<part> <sha256>` lines, so a change in any part is a change of the source.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ListedAddress } from './listing.ts';
import type { SourceNames } from './read-names.ts';
import { parseSdnCsv } from './parse-sdn-csv.ts';
import { addressListFileName, parseAddressLists } from './parse-address-lists.ts';
import { createSdnAdvancedParser } from './parse-sdn-advanced-xml.ts';
import { firstSeenKey, parseFirstSeen, type FirstSeen } from './first-seen.ts';
import { describeSource, isUrl, readSource, readSourceBytes, type SourceLimits } from './read-source.ts';

/** Files may be local paths or URLs, except the directory of address lists, which is local. */
export type SanctionsSource =
  | { kind: 'sdn-csv'; sdnFile: string; commentsFile?: string; firstSeenFile?: string }
  | { kind: 'address-lists'; dir: string; firstSeenFile?: string }
  | { kind: 'sdn-advanced-xml'; file: string };

export interface SourceListings {
  listed: ListedAddress[];
  sha256: string;
  /** Paths or credential-free URLs, as recorded in sanctions_list_loads.source. */
  description: string;
  /** What a reader of the logs should know: cut remarks, odd items, missing values. */
  warnings: string[];
  /** The SDN names, when the same pass reads them (sdn_advanced.xml). */
  names?: SourceNames;
}

export interface Part {
  name: string;
  sha256: string;
}

export async function readListings(source: SanctionsSource, limits: SourceLimits): Promise<SourceListings> {
  switch (source.kind) {
    case 'sdn-csv':
      return readSdnCsv(source, limits);
    case 'address-lists':
      return readAddressLists(source, limits);
    case 'sdn-advanced-xml':
      return readSdnAdvancedXml(source.file, limits);
  }
}

async function readSdnCsv(source: Extract<SanctionsSource, { kind: 'sdn-csv' }>, limits: SourceLimits): Promise<SourceListings> {
  const parts: Part[] = [];
  const sdn = await readText(source.sdnFile, 'sdn.csv', parts, limits);
  const comments = source.commentsFile === undefined ? undefined : await readText(source.commentsFile, 'sdn_comments.csv', parts, limits);
  const firstSeen = source.firstSeenFile === undefined ? null : parseFirstSeen(await readText(source.firstSeenFile, 'first-seen', parts, limits));
  const parsed = parseSdnCsv(sdn, comments);
  const listed = parsed.addresses.map((a) => ({ ...a, listedAt: firstSeen?.get(firstSeenKey(a.label, a.address))?.listedAt ?? null }));
  const warnings = [
    ...parsed.cut.map((c) => `entry ${c.sdnUid}: remarks cut at 1,000 characters without a continuation${c.fragment ? `, dropped "${c.fragment}"` : ''}`),
    ...parsed.malformed.map((m) => `entry ${m.sdnUid}: unreadable address item "${m.item}"`),
  ];
  const files = [source.sdnFile, source.commentsFile, source.firstSeenFile].filter((f) => f !== undefined);
  return { listed, sha256: combined(parts), description: files.map(describeSource).join(' + '), warnings };
}

async function readAddressLists(source: Extract<SanctionsSource, { kind: 'address-lists' }>, limits: SourceLimits): Promise<SourceListings> {
  if (isUrl(source.dir)) throw new Error(`address lists are read from a local directory, not ${describeSource(source.dir)}`);
  const parts: Part[] = [];
  const names = readdirSync(source.dir).filter((name) => addressListFileName(name) !== null).sort();
  const files = [];
  for (const name of names) files.push({ name, text: await readText(path.join(source.dir, name), name, parts, limits) });
  const firstSeen = source.firstSeenFile === undefined ? null : parseFirstSeen(await readText(source.firstSeenFile, 'first-seen', parts, limits));
  const listed = parseAddressLists(files).flatMap((a) => withEntryIds(a, firstSeen?.get(firstSeenKey(a.label, a.address))));
  const description = [source.dir, source.firstSeenFile].filter((f) => f !== undefined).map(describeSource).join(' + ');
  return { listed, sha256: combined(parts), description, warnings: [] };
}

// The lists name no entry: the first-seen file may give one or several (one row per entry).
function withEntryIds(listed: ListedAddress, firstSeen: FirstSeen | undefined): ListedAddress[] {
  if (!firstSeen) return [listed];
  const uids = firstSeen.sdnUids.length > 0 ? firstSeen.sdnUids : [listed.sdnUid];
  return uids.map((sdnUid) => ({ ...listed, sdnUid, listedAt: firstSeen.listedAt }));
}

async function readSdnAdvancedXml(file: string, limits: SourceLimits): Promise<SourceListings> {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8');
  const parser = createSdnAdvancedParser();
  for await (const chunk of readSource(file, limits)) {
    hash.update(chunk);
    parser.write(decoder.decode(chunk, { stream: true }));
  }
  parser.write(decoder.decode());
  const parsed = parser.end();
  const [sha256, description] = [hash.digest('hex'), describeSource(file)];
  return { listed: parsed.addresses, sha256, description, warnings: parsed.warnings, names: { names: parsed.names, births: parsed.births, sha256, description, warnings: parsed.nameWarnings } };
}

export async function readText(location: string, name: string, parts: Part[], limits: SourceLimits): Promise<string> {
  const bytes = await readSourceBytes(location, limits);
  parts.push({ name, sha256: createHash('sha256').update(bytes).digest('hex') });
  return new TextDecoder('utf-8').decode(bytes);
}

export function combined(parts: Part[]): string {
  if (parts.length === 1) return parts[0]!.sha256;
  return createHash('sha256')
    .update(parts.map((p) => `${p.name} ${p.sha256}\n`).join(''))
    .digest('hex');
}

// The real OFAC files under ../shared/data/ofac (described in its SOURCES.md), read as published.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ofacDir = fileURLToPath(new URL('../../../shared/data/ofac/', import.meta.url));
export const addressListsDir = path.join(ofacDir, 'address-lists-2024-09-27');

export function ofacPath(relative: string): string {
  return path.join(ofacDir, relative);
}

export function readOfac(relative: string): string {
  return readFileSync(ofacPath(relative), 'utf8');
}

/** The 0xB10C list files of 2024-09-27 as { name, text }. */
export function addressListFiles(): { name: string; text: string }[] {
  return readdirSync(addressListsDir).map((name) => ({ name, text: readFileSync(path.join(addressListsDir, name), 'utf8') }));
}

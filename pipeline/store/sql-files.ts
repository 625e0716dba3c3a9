// SQL lives in sql/ as files an analyst can read; code loads them by name.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const sqlDir = fileURLToPath(new URL('../../sql/', import.meta.url));
const cache = new Map<string, string>();

/** Text of `sql/<name>.sql`, e.g. `sqlFile('score/address_facts')`. */
export function sqlFile(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(`${sqlDir}${name}.sql`, 'utf8');
    cache.set(name, text);
  }
  return text;
}

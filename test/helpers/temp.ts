// Temporary data folders, removed after the test file finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

export function tempDataDir(label = 'data'): string {
  const dir = mkdtempSync(path.join(tmpdir(), `reputation-${label}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// How a CLI finds the server that owns DATA_DIR: the server writes admin.json (pid, url) and a
// random admin.token (mode 0600, readable only by the user running it) when its admin endpoint
// is listening, and removes admin.json on clean shutdown.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface AdminEndpoint {
  pid: number;
  url: string;
  token: string;
}

const infoFile = (dataDir: string) => path.join(dataDir, 'admin.json');
const tokenFile = (dataDir: string) => path.join(dataDir, 'admin.token');

export function writeAdminFiles(dataDir: string, endpoint: AdminEndpoint): void {
  writeFileSync(tokenFile(dataDir), endpoint.token, { mode: 0o600 });
  // Written whole then renamed: a CLI command reading it while the server starts must never see
  // half a file (the crash test's quick restarts did).
  const temporary = `${infoFile(dataDir)}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ pid: endpoint.pid, url: endpoint.url })}\n`, { mode: 0o644 });
  renameSync(temporary, infoFile(dataDir));
}

export function removeAdminFiles(dataDir: string): void {
  rmSync(infoFile(dataDir), { force: true });
  rmSync(tokenFile(dataDir), { force: true });
}

/** The endpoint of a live server on this DATA_DIR, or null (no file, or its process is gone). */
export function readAdminEndpoint(dataDir: string): AdminEndpoint | null {
  try {
    const info = JSON.parse(readFileSync(infoFile(dataDir), 'utf8')) as { pid: number; url: string };
    if (!processAlive(info.pid)) return null;
    return { pid: info.pid, url: info.url, token: readFileSync(tokenFile(dataDir), 'utf8').trim() };
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// A secret the service keeps in DATA_DIR (the response signing key, the session key): read at
// start, or made at the first one. Made in a 0600 temporary file, fsynced, then renamed into place,
// so a crash leaves the old state or the whole file, never a part of one. A file readable by
// others (restored from a backup, say) is tightened to 0600, with a warning.
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import type { Logger } from './log.ts';

export function readOrCreateSecretFile(file: string, make: () => string, log: Logger, what: string): { text: string; created: boolean } {
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) {
      chmodSync(file, 0o600);
      log.warn(`the ${what} file was readable by others; its mode is now 0600`, { file, mode: mode.toString(8) });
    }
    return { text: readFileSync(file, 'utf8'), created: false };
  }
  const text = make();
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return { text, created: true };
}

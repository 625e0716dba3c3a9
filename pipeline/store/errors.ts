// Failures to open the database, each with a message that tells the user what to do.

export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
  constructor(
    readonly file: string,
    readonly pid: number,
    readonly program: string,
  ) {
    super(
      `the database ${file} is held by another process (PID ${pid}, ${program}). ` +
        `DuckDB allows one process per database file: stop that process (kill ${pid}), ` +
        `or, if it is 'reputation serve', run CLI commands while it runs: they go through its admin endpoint.`,
    );
  }
}

export class WalRecoveryError extends Error {
  override name = 'WalRecoveryError';
  constructor(
    readonly file: string,
    cause: string,
  ) {
    super(
      `refusing to start: the write-ahead log ${file}.wal could not be replayed (${cause}). ` +
        `The WAL holds committed writes and has been left untouched; do not delete it. ` +
        `Keep a copy of ${file} and ${file}.wal and open them with a newer DuckDB, or restore from an export.`,
    );
  }
}

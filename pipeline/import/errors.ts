// A file that cannot be imported at all: unknown format, unreadable, a required column missing.
// Nothing is written, and the message says what to fix. Problems of single rows are not errors:
// they are listed in the import report.
export class ImportFileError extends Error {
  override name = 'ImportFileError';
}

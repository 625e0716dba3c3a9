// Staging: each format's reader leaves the file in the temporary table `import_file`, with the
// record's `line` (physical line for CSV and JSONL, 1-based row number for Parquet), `malformed`
// (why the record could not be read at all, else NULL) and one VARCHAR column per wanted column the
// file has. Everything arrives as text, so the checks see what the file says, uncoerced.
import type { WriteTx } from '../store/group-commit.ts';
import { ImportFileError } from './errors.ts';
import type { ImportFormat } from './format.ts';

/** Stages `file` and returns the names of all its columns, in file order. */
export type Stage = (tx: WriteTx, file: string, wanted: readonly string[]) => Promise<string[]>;

/** Runs a statement that reads the file; DuckDB's failure becomes a file error that names the file. */
export async function readStep<T>(file: string, format: ImportFormat, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`cannot read ${file} as ${format}: ${duckdbProblem(err)}`);
  }
}

// DuckDB's reader errors run to many lines: what happened, the offending line in full, the reader's
// options, sometimes a stack trace. The first paragraph without the quoted line says it.
function duckdbProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const paragraph = message.split('\n\n')[0]!.split('\n');
  return paragraph.filter((line) => !line.startsWith('Original Line:')).join(' ').slice(0, 500);
}

// File formats an import reads, told by the file's name unless the caller names one.
import { ImportFileError } from './errors.ts';

export const importFormats = ['parquet', 'csv', 'jsonl'] as const;
export type ImportFormat = (typeof importFormats)[number];

const byName: readonly [RegExp, ImportFormat][] = [
  [/\.parquet$/i, 'parquet'],
  [/\.csv(\.gz)?$/i, 'csv'],
  [/\.(jsonl|ndjson)(\.gz)?$/i, 'jsonl'],
];

export function formatFromName(file: string): ImportFormat {
  const match = byName.find(([pattern]) => pattern.test(file));
  if (!match) {
    throw new ImportFileError(
      `cannot tell the format of ${file} from its name (.parquet, .csv, .jsonl or .ndjson, the text ones optionally .gz): give --format`,
    );
  }
  return match[1];
}

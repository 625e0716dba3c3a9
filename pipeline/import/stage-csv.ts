// CSV: a header on line 1, comma-separated, RFC 4180 quoting ("" inside quotes), \n or \r\n line
// ends, optionally gzip-compressed. DuckDB reads the records (all VARCHAR, empty field = NULL) and,
// separately, the physical lines; sql/import/csv_record_starts.sql works out where each record
// starts, so every row, and every record DuckDB rejects as malformed, carries its physical line.
import type { WriteTx } from '../store/group-commit.ts';
import { sqlFile } from '../store/sql-files.ts';
import { ImportFileError } from './errors.ts';
import { quoteIdentifier } from './quote.ts';
import { readStep, type Stage } from './stage.ts';

export const stageCsv: Stage = async (tx, file, wanted) => {
  const names = await readStep(file, 'csv', async () => {
    await tx.run(sqlFile('import/read_lines'), [file]);
    await tx.run(sqlFile('import/csv_record_starts'));
    const [header] = await tx.all(sqlFile('import/csv_header'));
    if (!header) throw new ImportFileError(`${file} has no header on line 1: a CSV import names its columns there`);
    const names = (header.names as string[]).map(String);
    // Generic names keep whatever the header says out of the SQL; columns are picked by position.
    const columns = names.map((_, i) => `'c${i + 1}': 'VARCHAR'`).join(', ');
    await tx.run(
      `CREATE OR REPLACE TEMP TABLE import_csv_rows AS
       SELECT row_number() OVER () AS ord, *
         FROM read_csv($1, columns = {${columns}}, header = true, auto_detect = false,
                       delim = ',', quote = '"', escape = '"', max_line_size = 16777216,
                       store_rejects = true, rejects_table = 'import_csv_rejects', rejects_scan = 'import_csv_reject_scans')`,
      [file],
    );
    return names;
  });
  await tx.run(sqlFile('import/csv_record_lines'));
  await checkRecordLines(tx, file);

  const picked = wanted.flatMap((name) => {
    const positions = names.flatMap((n, i) => (n === name ? [i] : []));
    if (positions.length > 1) throw new ImportFileError(`${file} names column "${name}" twice in its header`);
    return positions.map((i) => `r.c${i + 1} AS ${quoteIdentifier(name)}`);
  });
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE import_file AS
     SELECT l.line, NULL::VARCHAR AS malformed${picked.map((p) => `, ${p}`).join('')}
       FROM import_csv_rows r JOIN import_csv_record_lines l USING (ord)
     UNION ALL BY NAME
     SELECT line, malformed FROM import_csv_rejected`,
  );
  return names;
};

// The line model and DuckDB's parser must agree on the number of records; when they do not (a
// quirk of the file neither expects), refusing beats reporting bad rows on the wrong lines.
async function checkRecordLines(tx: WriteTx, file: string): Promise<void> {
  const [counts] = await tx.all(
    `SELECT (SELECT count(*) FROM import_csv_rows) AS rows, (SELECT count(*) FROM import_csv_record_lines) AS starts`,
  );
  if (counts!.rows !== counts!.starts) {
    throw new ImportFileError(
      `cannot tell which lines the rows of ${file} are on: DuckDB read ${counts!.rows} rows where the lines hold ` +
        `${counts!.starts} records; check the file's quoting (RFC 4180, "" for a quote inside a quoted field)`,
    );
  }
}

// Parquet: typed columns, read by DuckDB and turned into text here so the checks treat every format
// alike: integers and DECIMAL(p,0) become digits, timestamps ISO-like text (with the offset for
// TIMESTAMPTZ), booleans true/false, nested values JSON. A DOUBLE becomes text such as '1e+20',
// which the checks refuse as an integer: a float has already lost the exact value.
import { quoteIdentifier } from './quote.ts';
import { readStep, type Stage } from './stage.ts';

export const stageParquet: Stage = async (tx, file, wanted) => {
  const described = await readStep(file, 'parquet', () =>
    tx.all('DESCRIBE SELECT * FROM read_parquet($1, binary_as_string = true)', [file]),
  );
  const columns = described.map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
  const values = columns
    .filter((column) => wanted.includes(column.name))
    .map(({ name, type }) => {
      const nested = /^(STRUCT|MAP|UNION)\(|\]$/.test(type);
      return `, ${nested ? `to_json(${quoteIdentifier(name)})` : quoteIdentifier(name)}::VARCHAR AS ${quoteIdentifier(name)}`;
    })
    .join('');
  await readStep(file, 'parquet', () =>
    tx.run(
      `CREATE OR REPLACE TEMP TABLE import_file AS
       SELECT file_row_number + 1 AS line, NULL::VARCHAR AS malformed${values}
         FROM read_parquet($1, binary_as_string = true, file_row_number = true)`,
      [file],
    ),
  );
  return columns.map((column) => column.name);
};

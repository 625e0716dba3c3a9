// JSONL (also .ndjson): one JSON object a line, optionally gzip-compressed. DuckDB reads the file
// line by line and takes each line apart with its JSON functions, so a line that is not JSON is a
// bad row at its own line number instead of stopping the read. Columns are the keys of the objects;
// values are their text (a nested object or array as JSON text, null as absent).
import { sqlFile } from '../store/sql-files.ts';
import { quoteIdentifier } from './quote.ts';
import { readStep, type Stage } from './stage.ts';

export const stageJsonl: Stage = async (tx, file, wanted) => {
  await readStep(file, 'jsonl', () => tx.run(sqlFile('import/read_lines'), [file]));
  await tx.run(sqlFile('import/jsonl_records'));
  const keys = await tx.all(
    `SELECT key FROM (SELECT line, unnest(json_keys(text)) AS key FROM import_jsonl WHERE malformed IS NULL)
      GROUP BY key ORDER BY min(line), key`,
  );
  const found = keys.map((row) => String(row.key));
  const present = wanted.filter((name) => found.includes(name));
  // One parse per line for all the columns: json_extract_string with a list of paths.
  const paths = present.map((name) => `'$.${quoteIdentifier(name).replaceAll("'", "''")}'`).join(', ');
  const values = present.map((name, i) => `, v[${i + 1}] AS ${quoteIdentifier(name)}`).join('');
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE import_file AS
     SELECT line, malformed${values}
       FROM (SELECT line, malformed,
                    ${present.length > 0 ? `CASE WHEN malformed IS NULL THEN json_extract_string(text, [${paths}]) END` : 'NULL'} AS v
               FROM import_jsonl)`,
  );
  return found;
};

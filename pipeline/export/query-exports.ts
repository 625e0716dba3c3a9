// Read-only SQL over the latest export: a fresh in-memory DuckDB (no database file, so no lock and
// no conflict with the server), one view per Parquet file of exports/latest, then locked down so
// the query can read only that directory and write nothing but the one output file it was given.
// Only one statement, and only a SELECT or a plain EXPLAIN (DESCRIBE, SHOW and SUMMARIZE are
// SELECTs to DuckDB); anything else is refused before it runs.
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { readRows, type Row } from '../store/rows.ts';
import { readLatestExport, type RunExport } from './layout.ts';
import { ExportQueryError } from './export-query-error.ts';

export const readOnlyRefusal = 'only read-only queries (SELECT, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE) are allowed';

export interface ExportQuery {
  query: string;
  /** At most this many rows. */
  limit?: number;
  /** Write the result here as Parquet instead of returning rows. */
  parquetFile?: string;
}

export interface ExportQueryResult {
  run: RunExport;
  views: string[];
  columns: string[];
  /** Empty when the result went to a Parquet file. */
  rows: Row[];
}

export async function queryLatestExport(dataDir: string, request: ExportQuery): Promise<ExportQueryResult> {
  const run = readLatestExport(dataDir);
  if (!run) throw new ExportQueryError(`no export in ${path.join(dataDir, 'exports')} yet: run \`reputation score\`, then \`reputation export\``);
  const views = readdirSync(run.directory).filter((f) => f.endsWith('.parquet')).map((f) => f.slice(0, -'.parquet'.length)).sort();
  const parquetTmp = request.parquetFile && `${path.resolve(request.parquetFile)}.tmp-${randomBytes(6).toString('hex')}`;

  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    for (const view of views) {
      const file = sqlString(path.join(run.directory, `${view}.parquet`));
      // hive_partitioning off: the `run=N` directory would otherwise add a `run` column.
      await conn.run(`CREATE VIEW ${identifier(view)} AS SELECT * FROM read_parquet(${file}, hive_partitioning = false)`);
    }
    await lockDown(conn, run.directory, parquetTmp);
    const prepared = await prepareReadOnly(conn, request.query);
    try {
      if (!parquetTmp) return { run, views, ...(await readResult(prepared, request.limit)) };
      await copyToParquet(conn, request.query, request.limit, parquetTmp);
      renameSync(parquetTmp, path.resolve(request.parquetFile!));
      return { run, views, columns: [], rows: [] };
    } finally {
      prepared.destroySync();
    }
  } finally {
    if (parquetTmp) rmSync(parquetTmp, { force: true });
    conn.closeSync();
    instance.closeSync();
  }
}

// File access is limited to the export directory (the views read it at query time) and the one
// output file; extensions are neither installed nor loaded; lock_configuration stops the query
// from undoing any of it with SET.
async function lockDown(conn: DuckDBConnection, directory: string, outputFile: string | undefined): Promise<void> {
  await conn.run(`SET allowed_directories = [${sqlString(`${directory}${path.sep}`)}]`);
  if (outputFile) await conn.run(`SET allowed_paths = [${sqlString(outputFile)}]`);
  for (const setting of ['enable_external_access', 'autoinstall_known_extensions', 'autoload_known_extensions']) await conn.run(`SET ${setting} = false`);
  await conn.run('SET lock_configuration = true');
}

const oneStatement = 'give exactly one SQL statement';

const readOnlyTypes = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN]);

// The words a read statement starts with: when DuckDB cannot even prepare a statement (DELETE
// from a view fails while binding), the first word decides between refusing it and showing
// DuckDB's error.
const readStatementStart = /^(?:\s+|--[^\n]*|\/\*[\s\S]*?\*\/|\()*(select|with|from|values|table|explain|describe|desc|show|summarize|pivot|unpivot)\b/i;

// EXPLAIN ANALYZE runs the statement it explains. DuckDB also takes it after comments, and as
// EXPLAIN (ANALYZE) or EXPLAIN (FORMAT json, ANALYZE): all are refused.
const explainAnalyze = /^(?:\s+|--[^\n]*|\/\*[\s\S]*?\*\/)*explain(?:\s+|--[^\n]*|\/\*[\s\S]*?\*\/)*(?:analy[sz]e\b|\([^)]*\banaly[sz]e\b)/i;

async function prepareReadOnly(conn: DuckDBConnection, query: string): Promise<DuckDBPreparedStatement> {
  const statements = await conn.extractStatements(query).catch(async (err: Error) => {
    // DuckDB's client fails without a message when it finds no statement at all ('', ';', a
    // comment); one more statement after it then parses as the only one.
    const withOne = await conn.extractStatements(`${query}\n;SELECT 1`).catch(() => null);
    throw new ExportQueryError(withOne?.count === 1 ? oneStatement : firstLine(err));
  });
  if (statements.count !== 1) throw new ExportQueryError(oneStatement);
  const prepared = await statements.prepare(0).catch((err: Error) => {
    throw new ExportQueryError(readStatementStart.test(query) ? firstLine(err) : readOnlyRefusal);
  });
  // EXPLAIN ANALYZE runs the statement it explains: refused like any statement that could write.
  if (!readOnlyTypes.has(prepared.statementType) || explainAnalyze.test(query)) {
    prepared.destroySync();
    throw new ExportQueryError(readOnlyRefusal);
  }
  return prepared;
}

async function readResult(prepared: DuckDBPreparedStatement, limit: number | undefined): Promise<{ columns: string[]; rows: Row[] }> {
  // Streamed, so a limit stops reading early instead of materialising the whole result.
  const reader = await userError(limit === undefined ? prepared.runAndReadAll() : prepared.streamAndReadUntil(limit));
  const rows = readRows(reader);
  return { columns: reader.columnNames(), rows: limit === undefined ? rows : rows.slice(0, limit) };
}

// The query was checked to be one read statement; wrapped, the whole must still be one COPY (so a
// query cannot close the parenthesis and add options of its own).
async function copyToParquet(conn: DuckDBConnection, query: string, limit: number | undefined, file: string): Promise<void> {
  const inner = query.replace(/[\s;]+$/, '');
  const select = limit === undefined ? inner : `SELECT * FROM (\n${inner}\n) LIMIT ${limit}`;
  const copy = `COPY (\n${select}\n) TO ${sqlString(file)} (FORMAT parquet, USE_TMP_FILE false)`;
  const statements = await userError(conn.extractStatements(copy));
  if (statements.count !== 1) throw new ExportQueryError(readOnlyRefusal);
  const prepared = await userError(statements.prepare(0));
  try {
    if (prepared.statementType !== StatementType.COPY) throw new ExportQueryError(readOnlyRefusal);
    await userError(prepared.run());
  } finally {
    prepared.destroySync();
  }
}

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const identifier = (s: string) => `"${s.replaceAll('"', '""')}"`;
// DuckDB appends a stack trace to internal errors: the first line says what went wrong.
const firstLine = (err: Error) => err.message.split('\n')[0]!;
/** DuckDB rejecting the user's query is the user's error, reported in DuckDB's words. */
const userError = <T>(work: Promise<T>): Promise<T> =>
  work.catch((err: Error) => {
    throw new ExportQueryError(firstLine(err));
  });

// `reputation sql "<query>"`: one read-only query over the latest Parquet export, never the
// database itself, so it works the same whether or not `reputation serve` holds the database.
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { Config } from '../pipeline/config.ts';
import { exportedTables } from '../pipeline/export/tables.ts';
import { formatRows } from './output.ts';
import { UsageError } from './usage-error.ts';
import { wholeNumber } from './whole-number.ts';

const formats = ['table', 'csv', 'json', 'parquet'] as const;

interface SqlOptions {
  format: (typeof formats)[number];
  out?: string;
  limit?: number;
}

const viewList = exportedTables.map((t) => `  ${t.name.padEnd(18)}${t.about}`).join('\n');

export function registerSqlCommand(program: Command, config: () => Config): void {
  program
    .command('sql')
    .description('run one read-only SQL query over the latest Parquet export (DATA_DIR/exports/latest); works while the server runs')
    .argument('<query>', 'one SELECT, EXPLAIN, DESCRIBE, SHOW or SUMMARIZE statement; - reads it from standard input')
    .addOption(new Option('--format <format>', 'output format; json is one object per line').choices(formats).default('table'))
    .option('--out <file>', 'write the result to this file instead of standard output (required for parquet)')
    .option('--limit <rows>', 'at most this many rows', wholeNumber())
    .addHelpText('after', `\nViews, one per file of the export (columns: docs/analytics.md):\n${viewList}\n`)
    .action(async (argument: string, opts: SqlOptions) => {
      // `-`: a query kept in a file (`reputation sql - < query.sql`), or one that starts with a
      // `--` comment, which the command line would take for an option.
      const query = argument === '-' ? await readStdin() : argument;
      // Loaded here: DuckDB takes a while to load, which every other command would pay.
      const { queryLatestExport } = await import('../pipeline/export/query-exports.ts');
      const dataDir = config().dataDir;
      if (opts.format === 'parquet') {
        if (!opts.out) throw new UsageError('--format parquet needs --out <file>');
        await queryLatestExport(dataDir, { query, limit: opts.limit, parquetFile: opts.out });
        return;
      }
      const result = await queryLatestExport(dataDir, { query, limit: opts.limit });
      // A plan is a drawing: a table shows it as DuckDB drew it, not cut into a cell.
      const plan = opts.format === 'table' && result.columns.join() === 'explain_key,explain_value';
      const text = plan ? result.rows.map((r) => `${String(r.explain_value).trimEnd()}\n`).join('') : formatRows(result.rows, opts.format, { columns: result.columns, whole: '--format csv or json' });
      if (opts.out) return writeFileSync(opts.out, text);
      // Which snapshot answered, for a person at a terminal; programs reading the output never see it.
      if (opts.format === 'table' && process.stdout.isTTY) process.stderr.write(`-- export run=${result.run.runId} (${result.run.directory})\n`);
      process.stdout.write(text);
    });
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('`-` reads the query from standard input: redirect a file or pipe it in');
  let text = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) text += chunk;
  return text;
}

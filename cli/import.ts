// `reputation import FILE --kind transfers|agents|feedback`: loads a warehouse export. The path is
// made absolute here, so a server running elsewhere reads the same file.
import { Command, Option } from 'commander';
import path from 'node:path';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { importKinds } from '../pipeline/import/kinds.ts';
import { importFormats } from '../pipeline/import/format.ts';
import type { ImportReport } from '../pipeline/import/import-file.ts';
import { runOperation } from './operations-client.ts';
import { formatRows } from './output.ts';

export function registerImportCommand(program: Command, config: () => Config, log: Logger): void {
  program
    .command('import')
    .description('load a Parquet, CSV or JSONL export (transfers incl. Solana, ERC-8004 agents, feedback); see README for columns')
    .argument('<file>', 'the file; format from its extension (.parquet, or .csv, .jsonl, .ndjson, those optionally .gz), else give --format')
    .addOption(new Option('--kind <kind>', 'what the file holds').choices(importKinds).makeOptionMandatory())
    .addOption(new Option('--on-bad-rows <mode>', 'skip bad rows, or refuse the whole file if there is any').choices(['skip', 'refuse']).default('refuse'))
    .addOption(new Option('--format <format>', 'override the format from the extension').choices(importFormats))
    .option('--json', 'print the report as JSON')
    .action(async (file: string, opts: { kind: string; onBadRows: string; format?: string; json?: boolean }) => {
      const report = (await runOperation(config(), log, 'import', {
        file: path.resolve(file),
        kind: opts.kind,
        onBadRows: opts.onBadRows,
        format: opts.format,
      })) as ImportReport;
      if (opts.json) process.stdout.write(`${JSON.stringify(report)}\n`);
      else {
        const verdict = report.refused ? 'refused: nothing was written' : `loaded ${report.rowsLoaded} rows`;
        process.stdout.write(`${report.file} (${report.format}, ${report.kind}): read ${report.rowsRead} rows, ${verdict}, ${report.rowsSkipped} bad\n`);
        if (report.badRows.length > 0) process.stdout.write(formatRows(report.badRows as unknown as Record<string, unknown>[], 'table', { whole: '--json' }));
      }
      if (report.refused) process.exitCode = 1;
    });
}

// `reputation usage --account ID [--json]`: the account's current billing cycle (calls, included,
// overage so far) and its past cycles, with or without a running server.
import type { Command } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import type { CycleUsage, UsageReport } from '../api/usage/report.ts';
import { runOperation } from './operations-client.ts';
import { formatRows } from './output.ts';

export function registerUsageCommand(program: Command, config: () => Config, log: Logger): void {
  program
    .command('usage')
    .description('calls used in the current billing cycle and past ones, with included calls and overage')
    .requiredOption('--account <id>', 'the account (acc_…)')
    .option('--json', 'print the report as one JSON line')
    .action(async (opts: { account: string; json?: boolean }) => {
      const report = (await runOperation(config(), log, 'usage.show', { account: opts.account })) as UsageReport;
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(report)}\n`);
        return;
      }
      const c = report.current;
      process.stdout.write(
        `account ${report.account_id} (plan ${report.plan}, ${report.status})\n` +
          `current cycle ${c.cycle_start} .. ${c.cycle_end}: ${c.calls} calls used of ${included(c)}; ` +
          `overage ${c.overage_calls} calls, ${usd(c)} so far\n`,
      );
      if (report.past.length > 0) {
        process.stdout.write('past cycles:\n');
        const rows = report.past.map((p) => ({ cycle_start: p.cycle_start, cycle_end: p.cycle_end, plan: p.plan, calls: p.calls, included: included(p), overage_calls: p.overage_calls, overage: usd(p) }));
        process.stdout.write(formatRows(rows, 'table', { whole: '--json' }));
      }
    });
}

const included = (c: CycleUsage) => (c.included === null ? 'unlimited' : String(c.included));
const usd = (c: CycleUsage) => (c.overage_usd === null ? 'by contract' : `$${c.overage_usd.toFixed(4)}`);

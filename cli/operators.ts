// `reputation operators`: verification sessions a name screening flagged (spec 3.1: "credential
// issuance blocked pending manual review"), and a person's review of them.
import type { Command } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { runOperation } from './operations-client.ts';
import { printRows } from './output.ts';
import { UsageError } from './usage-error.ts';

export function registerOperatorsCommand(program: Command, config: () => Config, log: Logger): void {
  const operators = program.command('operators').description('verified operators: review verification sessions a sanctions name screening flagged');

  operators
    .command('flagged')
    .description(
      'list flagged verification sessions waiting for a review, oldest first, with the SDN entry (sdn_uid) and score of the match, and its birth check ' +
        '(in_listed_years: the year on the document is in the entry\'s listed dates; not_given: the vendor gave none; entry_undated: the entry lists none)',
    )
    .option('--json', 'print one JSON line per session')
    .action(async (opts: { json?: boolean }) => {
      const rows = await runOperation(config(), log, 'operators.flagged', {});
      printRows(rows, opts.json ? 'json' : 'table', { columns: ['session_id', 'flagged_at', 'account_id', 'merchant_name', 'sanctions_sdn_uid', 'sanctions_score', 'sanctions_birth_check', 'jurisdiction', 'operator_id'] });
    });

  operators
    .command('review')
    .description(
      'review a flagged session: --clear when the match is not this person (the operator becomes sanctions-clear as of now, ' +
        'the session verified and its token deliverable to the agent for 24 h); --confirm when it is (the session stays flagged for good)',
    )
    .argument('<session>', 'the session id (sess_…)')
    .option('--clear', 'the match is a false positive')
    .option('--confirm', 'the match stands')
    .option('--json', 'print the result as one JSON line')
    .action(async (session: string, opts: { clear?: boolean; confirm?: boolean; json?: boolean }) => {
      if (Boolean(opts.clear) === Boolean(opts.confirm)) throw new UsageError('give exactly one of --clear and --confirm');
      const result = (await runOperation(config(), log, 'operators.review', { sessionId: session, decision: opts.clear ? 'cleared' : 'confirmed' })) as {
        session_id: string;
        status: string;
        review_decision: string;
      };
      if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else process.stdout.write(`session ${result.session_id}: ${result.review_decision}; status now ${result.status}\n`);
    });
}

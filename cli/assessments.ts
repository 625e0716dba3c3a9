// `reputation assessments`: the newest recorded POST /v1/assess decisions (the audit trail,
// identity/assess/audit.ts), with or without a running server. For anything more, `reputation sql`
// over the exported `assessments` view (docs/analytics.md).
import { Option, type Command } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { maxListedAssessments } from '../identity/assess/listing.ts';
import { runOperation } from './operations-client.ts';
import { printRows } from './output.ts';
import { wholeNumber } from './whole-number.ts';
import { UsageError } from './usage-error.ts';

const columns = ['assessed_at', 'request_id', 'account_id', 'identity_kind', 'identity', 'operator_id', 'decision', 'reasons', 'policy_hash', 'signer_match', 'signer_sanctions'];

export function registerAssessmentsCommand(program: Command, config: () => Config, log: Logger): void {
  program
    .command('assessments')
    .description(
      'list recorded assess decisions, newest first: time, request id, account, identity (a normalised wallet address or the operator ' +
        "token's id, never the token), decision, reasons, policy hash and signer verdicts; kept ASSESSMENT_RETENTION_DAYS",
    )
    .option('--limit <n>', `how many decisions, at most ${maxListedAssessments}`, wholeNumber(1, 'a whole number', maxListedAssessments), 20)
    .option('--account <id>', "only this account's decisions (acc_…)")
    .addOption(new Option('--decision <decision>', 'only allow or only deny decisions').choices(['allow', 'deny']))
    .option('--json', 'one JSON object per line (reasons as a list)')
    .action(async (opts: { limit: number; account?: string; decision?: 'allow' | 'deny'; json?: boolean }) => {
      if (opts.account !== undefined && opts.account.trim() === '') throw new UsageError('--account needs an account id');
      const rows = await runOperation(config(), log, 'assessments.list', { limit: opts.limit, accountId: opts.account, decision: opts.decision });
      printRows(rows, opts.json ? 'json' : 'table', { columns, whole: '--json' });
    });
}

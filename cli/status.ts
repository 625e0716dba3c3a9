// `reputation status`: the service at a glance (api/admin/status.ts), for a person first: what
// needs attention at the top, then the figures behind it; `--json` for scripts and monitors.
import type { Command } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { runOperation } from './operations-client.ts';
import type { ServiceStatus } from '../api/admin/status.ts';
import { duration } from '../pipeline/duration.ts';

export function registerStatusCommand(program: Command, config: () => Config, log: Logger): void {
  program
    .command('status')
    .description('the service at a glance: what needs attention, score and chain freshness, the sanctions list, reviews waiting, failed jobs')
    .option('--json', 'print the status as one JSON object')
    .option('--check', 'exit 1 when something needs attention (for a monitor or a cron job)')
    .action(async (opts: { json?: boolean; check?: boolean }) => {
      const status = (await runOperation(config(), log, 'status', {})) as ServiceStatus;
      process.stdout.write(opts.json ? `${JSON.stringify(status)}\n` : render(status));
      if (opts.check && status.attention.length > 0) process.exitCode = 1;
    });
}

function render(s: ServiceStatus): string {
  const ago = (seconds: number | null) => (seconds === null ? '' : ` (${duration(seconds)} ago)`);
  const lines = [
    s.attention.length === 0 ? 'Nothing needs attention.' : 'Needs attention:',
    ...s.attention.map((a) => `  - ${a}`),
    '',
    `server        ${s.server_running ? 'running (answered through its admin endpoint)' : 'not running (read from the database directly)'}`,
    `scoring       ${s.scoring.last_run_id === null ? 'no run yet' : `run ${s.scoring.last_run_id} (${s.scoring.last_run_kind}) at ${s.scoring.last_scored_at}${ago(s.scoring.age_seconds)}${s.scoring.stale ? ', stale' : ''}`}`,
    ...(s.ingest.length === 0
      ? ['ingest        nothing ingested yet']
      : s.ingest.map((c, i) => `${i === 0 ? 'ingest' : ''}`.padEnd(14) + `${c.chain}/${c.source} at block ${c.block}, recorded ${c.recorded_at}${ago(c.age_seconds)}`)),
    `sanctions     ${
      s.sanctions.list_checked_at === null
        ? 'no list loaded'
        : `${s.sanctions.listed_addresses} addresses, confirmed current at ${s.sanctions.list_checked_at} (${duration(s.sanctions.list_age_hours! * 3600)} ago; at most ${s.sanctions.max_age_hours} h)`
    }`,
    `sdn names     ${s.sanctions.names_loaded_at === null ? 'none loaded' : `${s.sanctions.listed_names} names, ${s.sanctions.listed_births ?? 'no'} dates of birth, loaded ${s.sanctions.names_loaded_at}`}`,
    `identity      ${s.identity.operators} operators (verified or flagged), ${s.identity.active_tokens} active operator tokens, ${s.identity.flagged_waiting} waiting for a review`,
    // Without a server nothing runs: a run left running by a crash is closed at the next start.
    `jobs          ${s.jobs.running} ${s.server_running ? 'running' : 'recorded as running'}, ${s.jobs.failed_24h} failed in the last 24 h`,
    ...s.jobs.recent_failures.map((f) => `              ${String(f.finished_at)}  ${String(f.job_name)} (${String(f.run_id)}): ${String(f.error ?? '').split('\n')[0]}`),
  ];
  return `${lines.join('\n')}\n`;
}

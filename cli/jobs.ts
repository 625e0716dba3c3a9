// `reputation ingest|score|export|jobs|worker`: running jobs now, watching them, scheduling them.
import { Command, InvalidArgumentError, Option } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { jobNames, type JobName } from '../jobs/definitions.ts';
import { sourceNames } from '../pipeline/ingest/source-names.ts';
import { readAdminEndpoint } from '../api/admin/files.ts';
import { OperationInputError } from '../api/admin/operation-input-error.ts';
import { maxListedRuns, type JobProgress } from '../jobs/run-log.ts';
import { runOperation } from './operations-client.ts';
import { createProgressReporter } from './progress.ts';
import { printRows } from './output.ts';
import { UsageError } from './usage-error.ts';
import { parseAddress } from '../pipeline/address.ts';
import { wholeNumber } from './whole-number.ts';

const pollMs = 500;

interface RunStatus {
  state: string;
  result: unknown;
  error: string | null;
  progress: JobProgress | null;
}

/** Runs a job to the end, showing progress, and prints its result. */
export async function runJobAndReport(config: Config, log: Logger, name: JobName, data: Record<string, unknown>): Promise<void> {
  const reporter = createProgressReporter();
  const direct = readAdminEndpoint(config.dataDir) === null;
  if (direct) {
    const outcome = (await runOperation(config, log, 'jobs.run', { name, data }, (p) => reporter.update(p))) as { result: unknown };
    reporter.done();
    return printRows(outcome.result, 'table', { whole: '`jobs status --json`' });
  }
  const started = (await runOperation(config, log, 'jobs.run', { name, data, wait: false })) as { run_id: string; deduplicated: boolean };
  if (started.deduplicated) process.stderr.write(`the same ${name} job is already queued or running (${started.run_id}); following it\n`);
  let saidQueued = false;
  for (let look = 0; ; look++) {
    const status = await runStatus(config, log, started.run_id);
    // Said when it is still queued at the second look: at the first, a run about to start is
    // often not recorded yet, and it waits for nothing.
    if (status?.state === 'queued' && look > 0 && !saidQueued) {
      process.stderr.write(`${name} job ${started.run_id} is queued: it waits for a free slot or for work another job is doing\n`);
      saidQueued = true;
    }
    if (status?.progress) reporter.update(status.progress);
    if (status?.state === 'completed') {
      reporter.done();
      return printRows(status.result, 'table', { whole: `\`jobs status ${started.run_id} --json\`` });
    }
    if (status?.state === 'failed') {
      reporter.done();
      throw new OperationInputError(`job ${started.run_id} failed: ${status.error}`);
    }
    await sleep(pollMs);
  }
}

async function runStatus(config: Config, log: Logger, runId: string): Promise<RunStatus | null> {
  try {
    const [row] = (await runOperation(config, log, 'jobs.status', { runId })) as RunStatus[];
    return row ?? null;
  } catch (err) {
    // Queued but not started yet: no run recorded so far.
    if (err instanceof OperationInputError && /^no job run/.test(err.message)) return null;
    throw err;
  }
}

const seconds = wholeNumber(1, 'a whole number of seconds');
const count = wholeNumber(1);
const runCount = wholeNumber(1, 'a whole number', maxListedRuns);

const jsonObject = (value: string) => {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('expected a JSON object, e.g. \'{"chain":"base"}\'');
};

const address = (value: string) => {
  if (parseAddress(value)) return value;
  throw new InvalidArgumentError('expected an EVM address (0x + 40 hex) or a Solana base58 public key');
};

export function registerJobCommands(program: Command, config: () => Config, log: Logger): void {
  program
    .command('ingest')
    .description('read chain logs (token payments, ERC-8004 registries) of the configured chains into the database')
    .option('--chain <name>', 'only this chain')
    .addOption(new Option('--source <source>', 'only this source').choices(sourceNames))
    .action(async (opts: { chain?: string; source?: string }) => runJobAndReport(config(), log, 'ingest', opts));

  program
    .command('score')
    .description('run a scoring run (incremental when it can be, see docs/scoring.md) and export it for `reputation sql`')
    .option('--full', 'recompute every address, not only those whose inputs changed')
    .option('--address <address>', 'rescore this address now (an unknown one gets a minimal entry); not exported', address)
    .action(async (opts: { full?: boolean; address?: string }) => runJobAndReport(config(), log, 'score', opts));

  program
    .command('export')
    .description('export the newest scoring run as Parquet under DATA_DIR/exports/')
    .action(async () => runJobAndReport(config(), log, 'export', {}));

  program
    .command('worker')
    .description('process block-range reads from the job queue (needs REDIS_URL and the chains\' RPC_URL_<CHAIN>); never opens the database')
    .option('--concurrency <n>', 'jobs processed at once', count, 4)
    .action(async (opts: { concurrency: number }) => {
      const [{ startIoWorker }, { closeOnSignals }] = await Promise.all([import('../jobs/bullmq/io-worker.ts'), import('../api/server.ts')]);
      const worker = startIoWorker(config(), log.child('worker'), opts);
      await worker.waitUntilReady();
      log.info('worker ready', { concurrency: opts.concurrency });
      await closeOnSignals({ close: () => worker.close() }, log);
    });

  const jobs = program.command('jobs').description(`run, watch and schedule jobs (${jobNames.join(', ')})`);
  jobs
    .command('list')
    .description('list the schedules with the last run of each')
    .option('--json', 'one JSON object per line')
    .action(async (opts: { json?: boolean }) => printRows(await runOperation(config(), log, 'jobs.list', {}), opts.json ? 'json' : 'table', { whole: '--json' }));
  jobs
    .command('run')
    .description('run a job now and follow its progress')
    .argument('<job>', jobNames.join(' | '))
    .option('--data <json>', 'job input as a JSON object', jsonObject, {})
    .option('--no-wait', 'with a running server, enqueue and return the run id at once; without one the job runs here to the end')
    .action(async (job: string, opts: { data: Record<string, unknown>; wait: boolean }) => {
      if (!(jobNames as string[]).includes(job)) throw new UsageError(`unknown job ${job}; jobs: ${jobNames.join(', ')}`);
      if (opts.wait) return runJobAndReport(config(), log, job as JobName, opts.data);
      printRows(await runOperation(config(), log, 'jobs.run', { name: job, data: opts.data, wait: false }), 'table');
    });
  jobs
    .command('status')
    .description('show recent job runs, or one run, with live progress')
    .argument('[run-id]', 'a run id from `jobs run --no-wait` or `jobs status`')
    .option('--limit <n>', `how many recent runs, at most ${maxListedRuns}`, runCount, 20)
    .option('--json', 'one JSON object per line')
    .action(async (runId: string | undefined, opts: { limit: number; json?: boolean }) =>
      printRows(await runOperation(config(), log, 'jobs.status', { runId, limit: opts.limit }), opts.json ? 'json' : 'table', { whole: '--json' }),
    );
  jobs
    .command('schedule')
    .description('create, change or remove a recurring schedule')
    .argument('<schedule-id>', 'e.g. ingest-base, score, refresh-sanctions-list')
    .option('--every <seconds>', 'run every this many seconds', seconds)
    .option('--job <job>', `job to run (${jobNames.join(', ')}); needed for a new schedule`)
    .option('--data <json>', 'job input as a JSON object', jsonObject)
    .option('--remove', 'remove the schedule')
    .action(async (scheduleId: string, opts: { every?: number; job?: string; data?: Record<string, unknown>; remove?: boolean }) => {
      if (!opts.remove && opts.every === undefined) throw new UsageError('give --every <seconds> or --remove');
      const result = await runOperation(config(), log, 'jobs.schedule', {
        scheduleId,
        name: opts.job,
        data: opts.data ?? {},
        everySeconds: opts.remove ? null : opts.every,
      });
      printRows(result, 'table');
    });
}

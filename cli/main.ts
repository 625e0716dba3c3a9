// The `reputation` command line. Usage errors (unknown command, bad flag, bad value) print one
// line and exit 2; runtime failures print one line and exit 1; never a stack trace.
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../pipeline/config.ts';
import { createLogger } from '../pipeline/log.ts';
import { StoreLockedError, WalRecoveryError } from '../pipeline/store/errors.ts';
import { ExportQueryError } from '../pipeline/export/export-query-error.ts';
import { planNames } from '../api/plans.ts';
import { OperationInputError } from '../api/admin/operation-input-error.ts';
import { registerJobCommands } from './jobs.ts';
import { registerImportCommand } from './import.ts';
import { registerSqlCommand } from './sql.ts';
import { registerAllowlistCommand } from './allowlist.ts';
import { registerLimitsCommand } from './limits.ts';
import { registerUsageCommand } from './usage.ts';
import { registerOperatorsCommand } from './operators.ts';
import { registerStatusCommand } from './status.ts';
import { registerAssessmentsCommand } from './assessments.ts';
import { registerAgentCommands } from './agent.ts';
import { UsageError } from './usage-error.ts';
import { wholeNumber } from './whole-number.ts';
import { runOperation } from './operations-client.ts';
import { printAccount } from './output.ts';
import { DEFAULT_AGENTS, DEFAULT_DAYS, DEFAULT_PAYMENTS, parseDays, type DevnetCommandOptions } from './devnet-options.ts';

const log = createLogger();
const program = new Command('reputation')
  .description('Wallet reputation and identity service: ingest chain activity, score wallets, serve the API.')
  .option('--config <file>', 'JSON config file (also REPUTATION_CONFIG); environment variables override it')
  .exitOverride()
  // One line (with a "(Did you mean …?)" kept on it), prefixed like every other error of the
  // command: "reputation: ", not commander's "error: ".
  .configureOutput({ outputError: (text, write) => write(`${text.trim().split('\n').join(' ').replace(/^error: /, 'reputation: ')}\n`) });

const config = (): Config => loadConfig(process.env, program.opts<{ config?: string }>().config ?? process.env.REPUTATION_CONFIG);
const positiveInt = wholeNumber();

program
  .command('serve')
  .description('run the API and own the database (PORT, DATA_DIR, RPC_URL_<CHAIN>)')
  .action(async () => {
    const { closeOnSignals, startServer } = await import('../api/server.ts');
    const server = await startServer(config(), log);
    await closeOnSignals(server, log);
  });

program
  .command('demo')
  .description(
    'start a local devnet (DEVNET_PORT) with x402 payments (DEMO_AGENTS, DEMO_PAYMENTS), ingest and score it, and serve the API (PORT) ' +
      'with demo keys; runs until Ctrl-C',
  )
  .action(async () => (await import('./demo.ts')).runDemo(config(), log));

program
  .command('devnet')
  .description(
    'run the local EVM devnet (DEVNET_PORT) with the token and the ERC-8004 registries deployed and a simulated, ' +
      'reproducible history: agents registering, x402 payments, feedback (including a sybil farm)',
  )
  .option('--agents <count>', 'ERC-8004 agents to register, owned by operators with 1 to 10 agents each', positiveInt, DEFAULT_AGENTS)
  .option('--payments <count>', 'x402 payments to agents and merchants; plain USDC transfers add 5%', positiveInt, DEFAULT_PAYMENTS)
  .option('--no-payments', 'no payments or transfers (same as --payments 0); agents still register and sybils still rate')
  .option('--seed <seed>', 'the same seed gives the same history', 'devnet')
  .option('--days <count>', 'days of block time the history spans, ending two days ago', parseDays, DEFAULT_DAYS)
  .option('--truth <file>', 'write the ground truth (per-address facts, agents, feedback) to this JSON file')
  .action(async (opts: DevnetCommandOptions) => (await import('./devnet.ts')).runDevnet(config(), log, opts));

registerJobCommands(program, config, log);
registerImportCommand(program, config, log);
registerSqlCommand(program, config);
registerUsageCommand(program, config, log);
registerOperatorsCommand(program, config, log);
registerStatusCommand(program, config, log);
registerAssessmentsCommand(program, config, log);
registerAgentCommands(program);

const accounts = program.command('accounts').description('manage API accounts');
accounts
  .command('create')
  .description('create an account and print its API key (shown once)')
  .addOption(new Option('--plan <plan>', 'plan of the account').choices(planNames).makeOptionMandatory())
  .option('--name <name>', 'display name')
  .option('--json', 'print the result as one JSON line')
  .action(async (opts: { plan: string; name?: string; json?: boolean }) => {
    const created = await runOperation(config(), log, 'accounts.create', { plan: opts.plan, name: opts.name });
    printAccount(created as { id: string; api_key: string; plan: string }, Boolean(opts.json));
  });
accounts
  .command('rename')
  .description('change the display name of an account (the merchant name on the verify page of its sessions)')
  .argument('<account>', 'the account id (acc_…)')
  .requiredOption('--name <name>', 'the new display name (at most 200 characters)')
  .option('--json', 'print the result as one JSON line')
  .action(async (account: string, opts: { name: string; json?: boolean }) => {
    const renamed = (await runOperation(config(), log, 'accounts.rename', { accountId: account, name: opts.name })) as { id: string; name: string; plan: string };
    process.stdout.write(opts.json ? `${JSON.stringify(renamed)}\n` : `account ${renamed.id} (plan ${renamed.plan}) is now named "${renamed.name}"\n`);
  });
registerAllowlistCommand(accounts, config, log);
registerLimitsCommand(accounts, config, log);

const knownFailures = [ConfigError, StoreLockedError, WalRecoveryError, OperationInputError, ExportQueryError];

try {
  // Commander would print the whole help for no command at all: a usage error is one line.
  if (process.argv.length <= 2) throw new UsageError('give a command (reputation --help lists them)');
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`reputation: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof CommanderError) {
    // Help and version exit 0; every other commander error is a usage error.
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  const known = knownFailures.some((type) => err instanceof type);
  process.stderr.write(`reputation: ${(err as Error).message}\n`);
  if (!known && process.env.DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
}

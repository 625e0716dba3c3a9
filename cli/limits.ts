// `reputation accounts limits`: an enterprise account's own rate limits, included calls and cache
// TTL (spec section 8: enterprise limits are custom), over the plan's values.
import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { limitBounds, limitNames, type AccountLimitsReport, type LimitName } from '../api/usage/limits.ts';
import { runOperation } from './operations-client.ts';

/**
 * A whole number within the limit's bounds, or `default` (back to the plan's value; kept as the
 * word because commander turns a parser's null into ''); anything else is a usage error.
 */
function limitValue(name: LimitName): (value: string) => number | 'default' {
  const { min, max } = limitBounds[name];
  return (value) => {
    if (value === 'default') return value;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, or default`);
    return Number(value);
  };
}

const labels: Record<LimitName, { flag: string; text: string; unit: (v: number | null) => string }> = {
  ratePerMinute: { flag: 'rate-per-minute', text: 'requests per minute per API key', unit: (v) => `${v}/min` },
  ratePerSecond: { flag: 'rate-per-second', text: 'requests per second per API key', unit: (v) => `${v}/s` },
  includedCalls: { flag: 'quota', text: 'included calls per billing cycle (past them: overage by contract)', unit: (v) => (v === null ? 'unlimited' : `${v} calls`) },
  cacheTtlSeconds: { flag: 'cache-ttl', text: 'Cache-Control max-age of reputation lookups, in seconds', unit: (v) => `${v} s` },
};

export function registerLimitsCommand(accounts: Command, config: () => Config, log: Logger): void {
  const command = accounts
    .command('limits')
    .description(
      "show or set an enterprise account's own rate limits, included calls and cache TTL; `default` returns one to the plan's value. " +
        'Takes effect at once in a running server',
    )
    .requiredOption('--account <id>', 'the account (acc_…)')
    .option('--json', 'print the result as one JSON line');
  for (const name of limitNames) command.option(`--${labels[name].flag} <n>`, `${labels[name].text}, or default`, limitValue(name));
  command.action(async (opts: { account: string; json?: boolean } & Record<string, number | 'default' | undefined>) => {
    // commander names an option by its flag in camelCase (--cache-ttl → cacheTtl).
    const given = (name: LimitName) => opts[labels[name].flag.replace(/-(.)/g, (_, c: string) => c.toUpperCase())];
    const change = Object.fromEntries(limitNames.filter((name) => given(name) !== undefined).map((name) => [name, given(name) === 'default' ? null : given(name)]));
    const report = (await runOperation(config(), log, 'accounts.limits', { accountId: opts.account, ...change })) as AccountLimitsReport;
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    process.stdout.write(`account ${report.account_id} (plan ${report.plan})\n`);
    for (const name of limitNames) {
      const source = report.overrides[name] === null ? 'plan' : 'custom';
      process.stdout.write(`  --${labels[name].flag.padEnd(16)} ${labels[name].unit(report.limits[name]).padEnd(16)} (${source})\n`);
    }
  });
}

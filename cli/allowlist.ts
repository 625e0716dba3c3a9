// `reputation accounts allowlist`: the IP allowlist of an enterprise API key (spec section 8).
import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { AllowlistEntryError, normaliseAllowlist, splitAllowlistArgument } from '../api/security/ip-allowlist.ts';
import { runOperation } from './operations-client.ts';
import { UsageError } from './usage-error.ts';

interface AllowlistOptions {
  keyId?: string;
  account?: string;
  set?: string[];
  clear?: boolean;
  json?: boolean;
}

interface AllowlistChange {
  key_id: string;
  account_id: string;
  plan: string;
  allowlist: string[];
}

/** A bad network in --set is a usage error (exit 2), found before anything is opened. */
function networks(value: string): string[] {
  const entries = splitAllowlistArgument(value);
  if (entries.length === 0) throw new InvalidArgumentError('give at least one address or network (use --clear to remove the allowlist)');
  try {
    return normaliseAllowlist(entries);
  } catch (err) {
    if (err instanceof AllowlistEntryError) throw new InvalidArgumentError(err.message);
    throw err;
  }
}

export function registerAllowlistCommand(accounts: Command, config: () => Config, log: Logger): void {
  accounts
    .command('allowlist')
    .description(
      'set, clear or show the IP allowlist of an API key (enterprise plans only): with one set, requests with the key ' +
        'from any other address get 403 ip_not_allowed. The address checked is the TCP peer, or behind trusted proxies (TRUST_PROXY_HOPS) the forwarded one',
    )
    .option('--key-id <id>', 'the API key (key_…)')
    .option('--account <id>', 'every active key of this account (acc_…); without --set or --clear, shows their key ids and lists')
    .option('--set <networks>', 'comma-separated IPv4/IPv6 addresses or CIDR networks, replacing the list, e.g. 203.0.113.0/24,2001:db8::/32', networks)
    .option('--clear', 'remove the allowlist: the key works from any address again')
    .option('--json', 'print one JSON line per key')
    .action(async (opts: AllowlistOptions) => {
      if ((opts.keyId === undefined) === (opts.account === undefined)) throw new UsageError('give exactly one of --key-id and --account');
      if (opts.set && opts.clear) throw new UsageError('give --set or --clear, not both');
      const cidrs = opts.clear ? [] : opts.set;
      const changes = (await runOperation(config(), log, 'accounts.allowlist', { keyId: opts.keyId, accountId: opts.account, cidrs })) as AllowlistChange[];
      for (const change of changes) {
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(change)}\n`);
          continue;
        }
        const list = change.allowlist.length > 0 ? change.allowlist.join(', ') : 'none (any address)';
        process.stdout.write(`key ${change.key_id} (account ${change.account_id}, plan ${change.plan}): ${list}\n`);
      }
    });
}

// Job handlers: the work itself, the same whichever runner calls it (the in-process timer now,
// BullMQ workers later). No scheduling logic here.
import type { Config } from '../pipeline/config.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import type { IngestProgress, SourceResult } from '../pipeline/ingest/ingest-source.ts';
import type { SourceName } from '../pipeline/ingest/sources.ts';
import { runScoring, type ScoringRun } from '../pipeline/score/run.ts';

export interface JobDeps {
  store: Store;
  config: Config;
  log: Logger;
}

export class NoChainConfiguredError extends Error {
  override name = 'NoChainConfiguredError';
}

/** Ingests one chain (optionally one source), or every configured chain when `chain` is omitted. */
export async function ingestJob(
  deps: JobDeps,
  args: { chain?: string; source?: SourceName },
  onProgress?: (p: IngestProgress) => void,
): Promise<SourceResult[]> {
  const names = args.chain ? [args.chain] : Object.keys(deps.config.chains);
  if (names.length === 0) throw new NoChainConfiguredError('no chain is configured: set RPC_URL_<CHAIN> (e.g. RPC_URL_BASE) or run `reputation demo`');
  const results: SourceResult[] = [];
  for (const name of names) {
    const chain = deps.config.chains[name];
    if (!chain) throw new NoChainConfiguredError(`chain ${name} is not configured; configured: ${Object.keys(deps.config.chains).join(', ') || 'none'}`);
    results.push(...(await ingestChain({ store: deps.store, chain, log: deps.log.child('ingest'), only: args.source, onProgress })));
  }
  return results;
}

export function scoreJob(deps: JobDeps): Promise<ScoringRun> {
  return runScoring(deps.store);
}

// Job handlers: the work itself, the same whichever runner calls it (the in-process timer now,
// BullMQ workers later). No scheduling logic here.
import type { Config } from '../pipeline/config.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import { ingestTokenLogs, type IngestProgress, type IngestResult } from '../pipeline/ingest/token-logs.ts';
import { runScoring, type ScoringRun } from '../pipeline/score/run.ts';

export interface JobDeps {
  store: Store;
  config: Config;
  log: Logger;
}

export class NoChainConfiguredError extends Error {
  override name = 'NoChainConfiguredError';
}

/** Ingests one chain, or every configured chain when `chain` is omitted. */
export async function ingestJob(deps: JobDeps, args: { chain?: string }, onProgress?: (p: IngestProgress) => void): Promise<IngestResult[]> {
  const names = args.chain ? [args.chain] : Object.keys(deps.config.chains);
  if (names.length === 0) throw new NoChainConfiguredError('no chain is configured: set RPC_URL_<CHAIN> (e.g. RPC_URL_BASE) or run `reputation demo`');
  const results: IngestResult[] = [];
  for (const name of names) {
    const chain = deps.config.chains[name];
    if (!chain) throw new NoChainConfiguredError(`chain ${name} is not configured; configured: ${Object.keys(deps.config.chains).join(', ') || 'none'}`);
    results.push(await ingestTokenLogs({ store: deps.store, chain, log: deps.log.child(`ingest:${name}`), onProgress }));
  }
  return results;
}

export function scoreJob(deps: JobDeps): Promise<ScoringRun> {
  return runScoring(deps.store);
}

// Job handlers: the work itself, the same whichever runner calls it (in-process timers, or the
// owner's BullMQ worker). No scheduling or queue logic here.
import { rpcUrlSetting, type Config } from '../pipeline/config.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import type { SourceResult } from '../pipeline/ingest/ingest-source.ts';
import type { ChunkFetcher } from '../pipeline/ingest/fetch-chunk.ts';
import type { SourceName } from '../pipeline/ingest/source-names.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { parseAddress } from '../pipeline/address.ts';
import { exportLatestRun } from '../pipeline/export/export-run.ts';
import { fetchMetadataJob } from '../pipeline/metadata/fetch-metadata-job.ts';
import { ListShrinkError, refreshSanctionsList } from '../pipeline/sanctions/load.ts';
import { namesSourceFromSettings, sanctionsSourceFromSetting } from '../pipeline/sanctions/source-setting.ts';
import { pruneAssessments } from '../identity/assess/assessments.ts';
import { pruneSessions } from '../identity/sessions.ts';
import { pruneCredentials } from '../identity/prune-credentials.ts';
import type { IdentityState } from '../identity/state.ts';
import { jobInputs, type JobData, type JobName } from './definitions.ts';
import { readFileSync } from 'node:fs';
import type { JobProgress } from './run-log.ts';

export interface JobDeps {
  store: Store;
  config: Config;
  log: Logger;
  /** Where ingestion reads block ranges; in this process when absent. */
  fetchChunk?: ChunkFetcher;
  /** The owner's identity state (a running server): what a prune deletes leaves its memory too. */
  identityState?: Pick<IdentityState, 'tokens' | 'refresh'>;
}

export class JobInputError extends Error {
  override name = 'JobInputError';
}

type Handler = (deps: JobDeps, data: JobData, progress: (p: JobProgress) => void) => Promise<unknown>;

const handlers: Record<JobName, Handler> = {
  ingest: (deps, data, progress) => ingestJob(deps, data as { chain?: string; source?: SourceName }, progress),
  'fetch-metadata': (deps, data, progress) =>
    fetchMetadataJob(deps, {
      ...metadataFetchOptions(deps.config),
      chain: data.chain as string | undefined,
      limit: data.limit as number | undefined,
      onProgress: (p) => progress({ ...p, unit: 'agents' }),
    }),
  score: (deps, data) => scoreJob(deps, data as { full?: boolean; address?: string }),
  'refresh-sanctions-list': async (deps, data) => {
    if (!deps.config.sanctionsListSource) throw new JobInputError('no sanctions list source: set SANCTIONS_LIST_SOURCE');
    let source, names;
    try {
      source = sanctionsSourceFromSetting(deps.config.sanctionsListSource);
      names = namesSourceFromSettings(deps.config.sanctionsListSource, deps.config.sanctionsNamesSource);
    } catch (err) {
      throw new JobInputError((err as Error).message);
    }
    if (!names) {
      // A folder of address lists has no names: screening has only what an earlier load left.
      deps.log.child('sanctions').warn('no SDN names source, names not refreshed: set SANCTIONS_NAMES_SOURCE to an sdn.csv or sdn_advanced.xml');
    }
    try {
      return await refreshSanctionsList(deps, source, { allowShrink: data.allowShrink as boolean | undefined, names: names ?? undefined });
    } catch (err) {
      // Trying again gives the same answer until the source changes or a person confirms it.
      if (err instanceof ListShrinkError) throw new JobInputError(err.message);
      throw err;
    }
  },
  export: (deps) => exportLatestRun(deps.store, deps.config.dataDir),
  // Through the operational writer, which appends the rows (identity/assess/assessments.ts).
  'prune-assessments': (deps) => pruneAssessments(deps.store, deps.config.assessmentRetentionDays, new Date()),
  'prune-sessions': (deps) => pruneSessions(deps.store, deps.config.sessionRetentionDays, new Date()),
  'prune-credentials': (deps) => pruneCredentials(deps.store, deps.identityState ?? null, deps.config.credentialRetentionDays, new Date()),
};

/**
 * A scoring run, then its export for analysts. Not exported: an on-demand run for one address
 * (the next scheduled run is, with everything it changed), and a run that recomputed nothing
 * (the newest export already holds the same state).
 */
async function scoreJob(deps: JobDeps, args: { full?: boolean; address?: string }) {
  if (args.address !== undefined && !parseAddress(args.address)) {
    throw new JobInputError(`score: address: not an EVM (0x + 40 hex) or Solana address: ${args.address}`);
  }
  const run = await runScoring(deps.store, {
    full: args.full,
    addresses: args.address === undefined ? undefined : [args.address],
    evmChain: Object.keys(deps.config.chains)[0],
  });
  if (run.kind === 'addresses' || run.rescoredCount === 0) return run;
  const exported = await exportLatestRun(deps.store, deps.config.dataDir);
  return { ...run, exportDirectory: exported.directory };
}

/** Validates the input and runs the job's handler. */
export function runHandler(deps: JobDeps, name: JobName, data: unknown, progress: (p: JobProgress) => void = () => {}): Promise<unknown> {
  const parsed = jobInputs[name].safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new JobInputError(`${name}: ${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  return handlers[name](deps, parsed.data as JobData, progress);
}

/** Ingests one chain (optionally one source), or every configured chain when `chain` is omitted. */
async function ingestJob(
  deps: JobDeps,
  args: { chain?: string; source?: SourceName },
  progress: (p: JobProgress) => void,
): Promise<SourceResult[]> {
  const names = args.chain ? [args.chain] : Object.keys(deps.config.chains);
  if (names.length === 0) throw new JobInputError('no chain is configured: set RPC_URL_<CHAIN> (e.g. RPC_URL_BASE) or run `reputation demo`');
  const results: SourceResult[] = [];
  for (const name of names) {
    const chain = deps.config.chains[name];
    if (!chain) throw new JobInputError(`chain ${name} is not configured; configured: ${Object.keys(deps.config.chains).join(', ') || 'none'}`);
    if (!chain.rpcUrl) throw new JobInputError(`chain ${name} has no RPC URL: set ${rpcUrlSetting(name)}`);
    results.push(
      ...(await ingestChain({
        store: deps.store,
        chain,
        log: deps.log.child('ingest'),
        only: args.source,
        fetchChunk: deps.fetchChunk,
        onProgress: (p) =>
          progress({
            done: Number(p.doneBlock - p.fromBlock + 1n),
            total: Number(p.toBlock - p.fromBlock + 1n),
            unit: 'blocks',
            ratePerSecond: p.logsPerSecond,
            etaSeconds: p.etaSeconds,
            detail: `${p.chain}/${p.source} ${p.logs} logs`,
          }),
      })),
    );
  }
  return results;
}

function metadataFetchOptions(config: Config) {
  return {
    ipfsGateway: config.metadataIpfsGateway,
    allowPrivateAddresses: config.metadataAllowPrivateAddresses,
    ...(config.metadataCaFile ? { ca: readFileSync(config.metadataCaFile, 'utf8') } : {}),
  };
}


// The fetch-metadata job: for every agent whose current agentURI has not been fetched (or not
// recently), fetch the registration file, parse it, judge its quality, gather outside evidence,
// and append the results. Fetches run with bounded concurrency; rows are written in small
// batches so one slow server never holds a large transaction open and a crash loses little.
import { timestampValue } from '@duckdb/node-api';
import pLimit from 'p-limit';
import type { Logger } from '../log.ts';
import type { WriteTx } from '../store/group-commit.ts';
import { sqlFile } from '../store/sql-files.ts';
import type { Store } from '../store/store.ts';
import { gatherEvidence, type AgentEvidence } from './evidence.ts';
import { fetchRegistrationFile, type FetchRegistrationResult } from './fetch-registration.ts';
import { parseRegistration, type ParsedRegistration } from './parse-registration.ts';
import { classifyMetadataQuality, type MetadataQuality } from './quality.ts';
import type { FetchOptions } from './safe-get.ts';

export interface FetchMetadataJobOptions extends FetchOptions {
  chain?: string;
  limit?: number;
  /** Fetches in flight at once (default 8). */
  concurrency?: number;
  /** A URI fetched longer ago than this is fetched again (default 24). */
  refetchAfterHours?: number;
  /** A URI whose last fetch failed transiently (timeout, network error, HTTP 5xx/429) is tried again after this (default 1). */
  retryAfterHours?: number;
  onProgress?: (progress: { done: number; total: number }) => void;
}

export interface FetchMetadataJobResult {
  selected: number;
  /** `ok` or the failure status, per fetched agent. */
  byStatus: Record<string, number>;
  byQuality: Record<MetadataQuality, number>;
}

interface AgentToFetch {
  chain: string;
  registry: string;
  agentId: bigint;
  agentUri: string;
}

interface Outcome {
  agent: AgentToFetch;
  fetched: FetchRegistrationResult;
  parsed: ParsedRegistration | null;
  quality: MetadataQuality;
  evidence: AgentEvidence | null;
}

const batchSize = 50;

export async function fetchMetadataJob(
  deps: { store: Store; log: Logger },
  options: FetchMetadataJobOptions = {},
): Promise<FetchMetadataJobResult> {
  const { chain, limit, concurrency = 8, refetchAfterHours = 24, retryAfterHours = 1, onProgress, ...fetchOptions } = options;
  const hoursAgo = (hours: number) => toTimestamp(new Date(Date.now() - hours * 3_600_000));
  const agents = (await deps.store.read(sqlFile('metadata/agents_to_fetch'), [chain ?? null, hoursAgo(refetchAfterHours), limit ?? null, hoursAgo(retryAfterHours)])).map(
    (row): AgentToFetch => ({
      chain: String(row.chain),
      registry: String(row.registry),
      agentId: BigInt(String(row.agent_id)),
      agentUri: String(row.agent_uri),
    }),
  );
  deps.log.info('fetching registration files', { agents: agents.length, chain: chain ?? 'all' });

  const result: FetchMetadataJobResult = { selected: agents.length, byStatus: {}, byQuality: { real: 0, placeholder: 0, unknown: 0 } };
  const pending: Outcome[] = [];
  const flush = async () => {
    const batch = pending.splice(0, pending.length);
    if (batch.length > 0) await deps.store.write((tx) => appendOutcomes(tx, batch));
  };
  let done = 0;
  const limitConcurrency = pLimit(concurrency);
  // When a batch fails to commit, stop: the fetches still queued would only be lost or repeated.
  const stopOnFailure = (err: unknown) => {
    limitConcurrency.clearQueue();
    throw err;
  };
  await Promise.all(
    agents.map((agent) =>
      limitConcurrency(async () => {
        const outcome = await fetchOne(agent, fetchOptions);
        const status = outcome.fetched.ok ? 'ok' : outcome.fetched.status;
        result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
        result.byQuality[outcome.quality] += 1;
        pending.push(outcome);
        // Writing inside the limited task holds back new fetches while a batch commits.
        if (pending.length >= batchSize) await flush();
        onProgress?.({ done: ++done, total: agents.length });
      }),
    ),
  ).catch(stopOnFailure);
  await flush();
  deps.log.info('fetched registration files', { ...result });
  return result;
}

async function fetchOne(agent: AgentToFetch, options: FetchOptions): Promise<Outcome> {
  const fetched = await fetchRegistrationFile(agent.agentUri, options);
  const parsed = fetched.ok ? parseRegistration(fetched.body) : null;
  const quality = classifyMetadataQuality(parsed, fetched);
  // Evidence only when there is a file to draw it from: an empty row after a failed fetch would
  // replace (newest row wins) what an earlier successful fetch found.
  const evidence = parsed && quality !== 'unknown' ? await gatherEvidence(parsed, options) : null;
  return { agent, fetched, parsed, quality, evidence };
}

const toTimestamp = (date: Date) => timestampValue(BigInt(date.getTime()) * 1000n);

// fetched_at and checked_at are the time the batch is written, inside the serialised writer, not
// the time each fetch ended: a scoring run takes the newest it saw as its watermark and reads
// only newer rows next time (sql/score/changed_agents.sql), and a fetch that ended before a run
// can be written after it (its evidence was slow, or its batch was not full yet).
async function appendOutcomes(tx: WriteTx, batch: Outcome[]): Promise<void> {
  const writtenAt = toTimestamp(new Date());
  await tx.append(
    'registration_files',
    batch.map(({ agent, fetched, parsed, quality }) => [
      agent.chain,
      agent.registry,
      agent.agentId,
      agent.agentUri,
      writtenAt,
      fetched.ok ? 'ok' : fetched.status,
      fetched.ok ? fetched.kind : null,
      fetched.ok ? fetched.sha256 : null,
      parsed?.name ?? null,
      parsed?.description ?? null,
      parsed?.image ?? null,
      parsed?.x402Support ?? null,
      parsed?.active ?? null,
      parsed ? JSON.stringify(parsed.services) : null,
      parsed ? JSON.stringify(parsed.supportedTrust) : null,
      quality,
      fetched.ok ? null : fetched.error,
    ]),
  );
  await tx.append(
    'agent_evidence',
    batch.flatMap(({ agent, evidence }) =>
      evidence
        ? [
            [
              agent.chain,
              agent.registry,
              agent.agentId,
              writtenAt,
              evidence.has_a2a_agent_card,
              evidence.website_url,
              evidence.website_reachable,
              evidence.website_mentions_mcp,
              evidence.website_mentions_x402,
              evidence.github_url,
              evidence.github_stars,
            ],
          ]
        : [],
    ),
  );
}

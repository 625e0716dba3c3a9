// The jobs the service runs, their inputs, their deterministic keys and the default schedule.
import { z } from 'zod';
import type { Config } from '../pipeline/config.ts';
import { sourceNames } from '../pipeline/ingest/source-names.ts';

const sourceName = z.enum(sourceNames);

export const jobInputs = {
  ingest: z.object({ chain: z.string().min(1).optional(), source: sourceName.optional() }).strict(),
  'fetch-metadata': z.object({ chain: z.string().min(1).optional(), limit: z.number().int().positive().optional() }).strict(),
  // full: recompute everything; address: rescore one address now (and what depends on it).
  score: z.object({ full: z.boolean().optional(), address: z.string().min(1).optional() }).strict(),
  // allowShrink: load a list that drops more than a tenth of the loaded addresses (pipeline/sanctions/load.ts).
  'refresh-sanctions-list': z.object({ allowShrink: z.boolean().optional() }).strict(),
  export: z.object({}).strict(),
  // Deletes assess audit rows older than ASSESSMENT_RETENTION_DAYS.
  'prune-assessments': z.object({}).strict(),
  // Deletes verification sessions nobody completed, SESSION_RETENTION_DAYS past their expiry, and older KYC webhook deliveries.
  'prune-sessions': z.object({}).strict(),
  // Deletes expired operator tokens no capture names, expired refresh families and wallet challenges, CREDENTIAL_RETENTION_DAYS past their expiry.
  'prune-credentials': z.object({}).strict(),
} as const;

export type JobName = keyof typeof jobInputs;
export const jobNames = Object.keys(jobInputs) as JobName[];
export type JobData = Record<string, string | number | boolean | undefined>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(jobInputs, name);
}

/**
 * The business key of a job: the same request gives the same key, so a duplicate is a no-op while
 * the first is queued or running. BullMQ forbids ':' in ids, so keys use '-'.
 */
export function jobKey(name: JobName, data: JobData): string {
  const parts = Object.keys(data)
    .sort()
    .filter((k) => data[k] !== undefined)
    .map((k) => `${k}_${String(data[k])}`);
  return [name, ...parts].join('-').replace(/[^A-Za-z0-9._-]/g, '_');
}

export interface Schedule {
  scheduleId: string;
  jobName: JobName;
  jobData: JobData;
  everySeconds: number;
}

/** The recurring work a fresh installation does; `jobs schedule` overrides any of it. */
export function defaultSchedules(config: Config): Schedule[] {
  // A chain without an RPC URL (described for its imported data) has nothing to ingest: every
  // scheduled run would fail. Its registration files are still fetched.
  const perChain = Object.values(config.chains).flatMap(({ name: chain, rpcUrl }): Schedule[] => [
    ...(rpcUrl ? [{ scheduleId: `ingest-${chain}`, jobName: 'ingest' as const, jobData: { chain }, everySeconds: config.ingestIntervalSeconds }] : []),
    { scheduleId: `fetch-metadata-${chain}`, jobName: 'fetch-metadata', jobData: { chain }, everySeconds: 300 },
  ]);
  return [
    ...perChain,
    // Each score run that changed something is exported as it commits: no export schedule.
    { scheduleId: 'score', jobName: 'score', jobData: {}, everySeconds: config.scoreIntervalSeconds },
    ...(config.scoreFullIntervalSeconds > 0
      ? [{ scheduleId: 'score-full', jobName: 'score' as const, jobData: { full: true }, everySeconds: config.scoreFullIntervalSeconds }]
      : []),
    ...(config.sanctionsListSource
      ? [{ scheduleId: 'refresh-sanctions-list', jobName: 'refresh-sanctions-list' as const, jobData: {}, everySeconds: 3600 }]
      : []),
    { scheduleId: 'prune-assessments', jobName: 'prune-assessments', jobData: {}, everySeconds: 86_400 },
    { scheduleId: 'prune-sessions', jobName: 'prune-sessions', jobData: {}, everySeconds: 86_400 },
    { scheduleId: 'prune-credentials', jobName: 'prune-credentials', jobData: {}, everySeconds: 86_400 },
  ];
}

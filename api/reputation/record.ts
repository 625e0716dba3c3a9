// Serves the records shaped from each scoring run's rows (sql/serve/address_record.sql): the spec
// 2.7 shape, free (redacted) or paid. What depends on the newest run or the clock is filled in here:
// scored_at and updated_at (the newest run: an address whose inputs did not change was confirmed
// by it), status (`scored` within STALE_AFTER_SECONDS of that run, by default 24 h as in spec 3.3,
// then `stale`), and the optional blocks a record without agents or feedback leaves out.
import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';
import { defaultStaleAfterSeconds } from '../../pipeline/config.ts';
import type { VerificationLevel } from '../../identity/wallets/directory.ts';

export type { VerificationLevel };

export const dataSemantics = 'candidate_payment_activity_with_verified_subset';

export interface NewestRun {
  runId: number;
  modelVersion: string;
  scoredAt: string;
  /** Block each chain's token source had reached when the run read it. */
  tokenCursors: Map<string, number>;
}

export interface StoredRecord {
  record_free: string;
  record_paid: string;
  view_facts: string;
}

export type Json = Record<string, any>;

export function scoreStatus(scoredAt: string, now: Date, staleAfterSeconds = defaultStaleAfterSeconds): 'scored' | 'stale' {
  return now.getTime() - Date.parse(scoredAt) > staleAfterSeconds * 1000 ? 'stale' : 'scored';
}

export interface ServeOptions {
  full: boolean;
  now: Date;
  chain?: string;
  /** The configured lag (config staleAfterSeconds); default 24 h. */
  staleAfterSeconds?: number;
}

// ERC-8004 token ids are uint256: the stored record writes them as whole JSON numbers, which
// JSON.parse would round above 2^53. Such integers come back as bigint, and recordJson writes
// them exactly; every other number is a number, as JSON.parse gives it.
const exactNumber = (text: string) => (isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text));

export function servedRecord(stored: StoredRecord, run: NewestRun, options: ServeOptions): Json {
  const record = parse(options.full ? stored.record_paid : stored.record_free, null, exactNumber) as Json;
  const status = scoreStatus(run.scoredAt, options.now, options.staleAfterSeconds);
  const stamp = (score: Json) => Object.assign(score, { scored_at: run.scoredAt, status });
  stamp(record.score);
  for (const chain of record.chains as Json[]) stamp(chain.score);
  record.updated_at = run.scoredAt;
  if (record.operator_score === null) delete record.operator_score;
  if (record.reputation === null) delete record.reputation;
  // Spec 4.1: `chain` filters chains and agents (to none where the address has no row there); the
  // score and the subject (its chains included) stay the address's: they describe what was asked
  // about, not the slice shown. 404 is only for an address not indexed at all.
  if (options.chain !== undefined) {
    const chain = options.chain;
    record.chains = (record.chains as Json[]).filter((c) => c.chain === chain);
    record.agents = (record.agents as Json[]).filter((a) => a.chain === chain);
  }
  return record;
}

const storedLevel = Buffer.from('"verification_level":"none"');

/**
 * A served record's JSON with the address's verification level now (spec 2.7, 3.4). Records are
 * built and cached per scoring run with `none`; the level comes from the operational store, live
 * (a claim shows on the next lookup), so it is put in as the record leaves: the top-level key is
 * the first of its name in the record (no field before it has one).
 */
export function withVerificationLevel(json: Buffer, level: VerificationLevel): Buffer {
  if (level === 'none') return json;
  const at = json.indexOf(storedLevel);
  if (at < 0) throw new Error('a served record without verification_level');
  return Buffer.concat([json.subarray(0, at), Buffer.from(`"verification_level":"${level}"`), json.subarray(at + storedLevel.length)]);
}

/** A record as the API sends it: UTF-8 JSON, integers of any size written exactly. */
export function recordJson(record: Json): Buffer {
  return Buffer.from(stringify(record)!);
}

/** An address known to the index (asked about, or an agent's owner) that no run has scored yet. */
export function knownUnscoredRecord(address: string, modelVersion: string, full: boolean): Json {
  return {
    ...(full ? { subject: { address, chains: [] } } : {}),
    score: { value: null, grade: null, scored_at: null, status: 'known_unscored', version: modelVersion },
    verification_level: 'none',
    chains: [],
    agents: [],
    data_semantics: dataSemantics,
    caveats: ['Known to the index but not scored yet: the next scoring run scores it.'],
    updated_at: null,
  };
}

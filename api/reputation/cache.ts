// An in-memory LRU of served reputation records, so a repeated lookup skips the database and the
// JSON work. An entry is what one (address, chain filter, shape) is served under the newest
// scoring run: the 2.7 record as the JSON bytes sent, and what the 2.8 view variant builds on.
//
// Everything in a served record that is not the address's own precomputed data comes from the
// newest run (scored_at, updated_at) or from the clock through that run (status: scored, then
// stale), and is the same for every address. So the whole cache is one generation: (newest run
// id, status). It is emptied when runScoring publishes a newer run (pipeline/score/newest-run.ts:
// in memory, no query) and when the status of the run flips, and an entry read from another
// snapshot or built with the other status is never stored.
import { newestRunId } from '../../pipeline/score/newest-run.ts';
import type { Store } from '../../pipeline/store/store.ts';
import { scoreStatus, type NewestRun } from './record.ts';

export type ScoreStatus = 'scored' | 'stale';

export interface CachedRecord {
  run: NewestRun;
  /** The 2.7 record as sent, its JSON in UTF-8 (bytes, so no answer encodes it again). */
  json: Buffer;
  /** The record's score, for the view variant. */
  score: { value: number; grade: string };
  /** sql/score/records.sql's `view_facts` of the address. */
  viewFacts: string;
}

export interface RecordCacheOptions {
  /** Most entries kept (least recently used go first); 0 disables the cache. */
  size: number;
  /** How a run's status follows from its scored_at and the clock (the one served records use). */
  status?: (scoredAt: string, now: Date) => ScoreStatus;
}

export class RecordCache {
  readonly size: number;
  hits = 0;
  misses = 0;
  // A Map iterates in insertion order: a hit is moved to the end, the first key is the LRU.
  private readonly entries = new Map<string, CachedRecord>();
  private readonly statusOf: (scoredAt: string, now: Date) => ScoreStatus;
  private runId: number | undefined;
  /** The generation's scored_at and status, known once its first entry is stored. */
  private scoredAt: string | undefined;
  private status: ScoreStatus | undefined;

  constructor(
    private readonly store: Store,
    options: RecordCacheOptions,
  ) {
    this.size = options.size;
    this.statusOf = options.status ?? scoreStatus;
  }

  static key(address: string, options: { full: boolean; chain?: string }): string {
    return `${address}|${options.chain ?? ''}|${options.full ? 'paid' : 'free'}`;
  }

  get entryCount(): number {
    return this.entries.size;
  }

  get(key: string, now: Date): CachedRecord | undefined {
    const hit = this.find(key, now);
    if (hit === undefined) {
      this.misses++;
      return undefined;
    }
    this.touch(key, hit);
    return hit;
  }

  /**
   * The entry of `key` in the current generation, neither counted nor moved: for a caller that
   * may still hand the request to get() (api/reputation/hot-lookup.ts), then touch() if it serves it.
   */
  find(key: string, now: Date): CachedRecord | undefined {
    if (this.size === 0) return undefined;
    this.followRun();
    if (this.scoredAt !== undefined) {
      const status = this.statusOf(this.scoredAt, now);
      if (status !== this.status) this.reset(this.runId, this.scoredAt, status);
    }
    return this.entries.get(key);
  }

  /** Counts a hit on `entry` (found by find()) and makes it the most recently used. */
  touch(key: string, entry: CachedRecord): void {
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** Stores what was served for `key`, built with `status`, unless it belongs to another generation. */
  set(key: string, entry: CachedRecord, status: ScoreStatus): void {
    if (this.size === 0) return;
    this.followRun();
    if (entry.run.runId !== this.runId) return;
    if (this.scoredAt === undefined) {
      this.scoredAt = entry.run.scoredAt;
      this.status = status;
    } else if (status !== this.status) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }

  private followRun(): void {
    const runId = newestRunId(this.store);
    if (runId !== this.runId) this.reset(runId, undefined, undefined);
  }

  private reset(runId: number | undefined, scoredAt: string | undefined, status: ScoreStatus | undefined): void {
    this.entries.clear();
    this.runId = runId;
    this.scoredAt = scoredAt;
    this.status = status;
  }
}

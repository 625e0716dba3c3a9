// The decision audit trail of POST /v1/assess: one row of `assessments` per live decision (time,
// account, identity kind and normalised identity, decision, reasons, policy hash, signer verdicts,
// request id), no personal data. Test-mode answers are not recorded.
//
// Recording never puts a database write on the request's path: record() checks the entry and
// notes it in memory, and the notes reach the store in batches through the operational writer
// (one appender unit per batch) every flushIntervalMs (200 ms), sooner once flushAtRecords are
// waiting, and at close. So an answer never waits for its audit row, and a kill -9 loses at most
// the rows of the last interval (docs/decisions.md, "The assessment audit trail"). A failed
// write keeps its rows, in order, for the next try (with a growing pause, at most 5 s); while the
// store stays down the buffer is bounded and the oldest rows go first, counted in an error line.
// Logs name a record by its request id only.
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Store } from '../../pipeline/store/store.ts';
import type { Logger } from '../../pipeline/log.ts';
import { parseAddress } from '../../pipeline/address.ts';
import { sha256Hex } from '../../pipeline/secrets.ts';
import { at } from '../store-values.ts';

export interface AssessmentRecord {
  assessedAt: Date;
  requestId: string;
  accountId: string;
  identityKind: 'wallet' | 'operator_token';
  /** Wallet: the normalised address (EVM lowercased, Solana verbatim). Operator token: the token's id, or 'unknown'; never the token. */
  identity: string;
  operatorId: string | null;
  decision: 'allow' | 'deny';
  reasons: string[];
  /** policyHash() of the request's policy; null without one. */
  policyHash: string | null;
  /** pass | wallet_signer_mismatch | wallet_auth_requires_wallet_signing; null without a signer. */
  signerMatch: string | null;
  signerSanctions: 'clear' | 'sanctioned' | 'unavailable' | null;
}

/** A record the trail refuses: a bug in the caller (a token where its id belongs, say), never stored. */
export class AuditRecordError extends Error {
  override name = 'AuditRecordError';
}

/**
 * Hex SHA-256 of the policy's canonical JSON (keys sorted at every level, arrays in the order
 * given, undefined members left out, as JSON.stringify leaves them out); null without a policy.
 * The same policy gives the same hash whatever order its keys came in.
 */
export function policyHash(policy: object | undefined | null): string | null {
  if (policy === undefined || policy === null) return null;
  // A merchant's gate sends the same few policies on every call: each is hashed once (by its JSON
  // as given, which is cheaper than its canonical form), in a table emptied when it fills. Long
  // policies (long jurisdiction lists) are hashed each time, so the table stays small.
  const given = JSON.stringify(policy);
  if (given.length > maxRememberedPolicyLength) return sha256Hex(canonicalJson(policy));
  let hash = policyHashes.get(given);
  if (hash === undefined) {
    if (policyHashes.size >= maxPolicyHashes) policyHashes.clear();
    policyHashes.set(given, (hash = sha256Hex(canonicalJson(policy))));
  }
  return hash;
}

const policyHashes = new Map<string, string>();
const maxPolicyHashes = 1_000;
const maxRememberedPolicyLength = 512;

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface AuditTrailOptions {
  /** Rows are appended through its operational writer (store.writeOperational). */
  store: Pick<Store, 'writeOperational'>;
  log: Logger;
  /** How often buffered records are written (default 200 ms); 0: no timer (flush() and close() only). */
  flushIntervalMs?: number;
  /** Buffered records that start a write at once, before the timer (default 1000). */
  flushAtRecords?: number;
  /** Records kept while writes fail; past it the oldest are dropped (default 100,000). */
  maxBufferedRecords?: number;
}

export const auditDefaults = { flushIntervalMs: 200, flushAtRecords: 1000, maxBufferedRecords: 100_000 } as const;

/** Rows per appender unit: a long outage's backlog goes in several short transactions. */
const maxRowsPerWrite = 10_000;
const maxRetryPauseMs = 5_000;

/** A buffered row, with its request id for log lines (its only field a log may name). */
interface Pending {
  requestId: string;
  row: DuckDBValue[];
}

export class AuditTrail {
  private readonly store: Pick<Store, 'writeOperational'>;
  private readonly log: Logger;
  private readonly flushAtRecords: number;
  private readonly maxBuffered: number;
  private readonly retryBaseMs: number;
  // Buffered rows are buffer[head..]: dropping the oldest is head++, not a shift of the array.
  private buffer: Pending[] = [];
  private head = 0;
  private writing: Promise<void> = Promise.resolve();
  /** A flush the timer or the buffer's size started and that has not settled yet. */
  private background = false;
  private failures = 0;
  private retryAt = 0;
  private droppedUnreported = 0;
  private droppedTotal = 0;
  private writtenTotal = 0;
  private writes = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout | null;

  constructor(options: AuditTrailOptions) {
    this.store = options.store;
    this.log = options.log;
    this.flushAtRecords = Math.max(1, options.flushAtRecords ?? auditDefaults.flushAtRecords);
    this.maxBuffered = Math.max(1, options.maxBufferedRecords ?? auditDefaults.maxBufferedRecords);
    const interval = options.flushIntervalMs ?? auditDefaults.flushIntervalMs;
    this.retryBaseMs = interval > 0 ? interval : auditDefaults.flushIntervalMs;
    this.timer = interval > 0 ? setInterval(() => this.flushInBackground(), interval) : null;
    this.timer?.unref();
  }

  /**
   * Notes one live decision; written within about flushIntervalMs. Synchronous and never waits
   * for the store. Throws AuditRecordError for a record that could carry a secret or is not
   * normalised (a caller's bug: refused loudly rather than stored).
   */
  record(entry: AssessmentRecord): void {
    if (this.closed) throw new Error('the assessment audit trail is closed');
    const row = rowOf(entry);
    if (this.size >= this.maxBuffered) this.dropOldest(this.size - this.maxBuffered + 1);
    this.buffer.push({ requestId: entry.requestId, row });
    if (this.size >= this.flushAtRecords) this.flushInBackground();
  }

  /** Writes everything buffered so far; rejects (keeping the rows) when the store refuses. */
  flush(): Promise<void> {
    const run = this.writing.then(() => this.writeBuffered());
    this.writing = run.catch(() => undefined);
    return run;
  }

  /** Stops the timer and writes what is left; later records are refused. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.closed = true;
    await this.flush();
  }

  /** Counters for tests and the bench: rows waiting, written, dropped, and the writes made. */
  get stats(): { buffered: number; written: number; dropped: number; writes: number } {
    return { buffered: this.size, written: this.writtenTotal, dropped: this.droppedTotal, writes: this.writes };
  }

  private get size(): number {
    return this.buffer.length - this.head;
  }

  private flushInBackground(): void {
    if (this.background || this.size === 0 || Date.now() < this.retryAt) return;
    this.background = true;
    // A failure is logged by writeBuffered; the rows wait for the next try.
    this.flush()
      .catch(() => undefined)
      .finally(() => (this.background = false));
  }

  private async writeBuffered(): Promise<void> {
    this.reportDrops();
    // What was buffered when the flush began, no more: under steady load new records would
    // otherwise keep the loop going (a commit per record, and a flush that never ends). They wait
    // for the next timer or size trigger, batched again.
    let owed = this.size;
    while (owed > 0 && this.size > 0) {
      const batch = this.buffer.slice(this.head, this.head + Math.min(maxRowsPerWrite, owed));
      owed -= batch.length;
      this.head += batch.length;
      this.compact();
      try {
        await this.store.writeOperational((tx) => tx.append('assessments', batch.map((p) => p.row)));
      } catch (err) {
        this.putBack(batch);
        this.failures += 1;
        this.retryAt = Date.now() + Math.min(this.retryBaseMs * 2 ** this.failures, maxRetryPauseMs);
        this.log.warn('could not write assessment audit records; kept for the next try', {
          records: batch.length,
          buffered: this.size,
          firstRequestId: batch[0]!.requestId,
          error: firstLine(err),
        });
        this.reportDrops();
        throw err;
      }
      this.writes += 1;
      this.writtenTotal += batch.length;
      if (this.failures > 0) this.log.info('assessment audit records written again', { records: batch.length, failedTries: this.failures });
      this.failures = 0;
      this.retryAt = 0;
    }
  }

  /** A failed batch goes back in front of what arrived meanwhile, then the bound applies again. */
  private putBack(batch: Pending[]): void {
    this.buffer = batch.concat(this.buffer.slice(this.head));
    this.head = 0;
    if (this.size > this.maxBuffered) this.dropOldest(this.size - this.maxBuffered);
  }

  private dropOldest(count: number): void {
    this.head += count;
    this.droppedUnreported += count;
    this.droppedTotal += count;
    this.compact();
  }

  private compact(): void {
    if (this.head === this.buffer.length) {
      this.buffer = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.buffer.length) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
  }

  /** One error line per write attempt for the records dropped since the last one. */
  private reportDrops(): void {
    if (this.droppedUnreported === 0) return;
    this.log.error('assessment audit buffer full while the store refused writes: oldest records dropped', {
      dropped: this.droppedUnreported,
      droppedTotal: this.droppedTotal,
      maxBufferedRecords: this.maxBuffered,
    });
    this.droppedUnreported = 0;
  }
}

// Secrets of this service have these prefixes (opc_ operator tokens, prt_ refresh tokens, pls_ poll
// secrets, rpk_ API keys, adm_ the admin token); ids never contain one (their random part has no '_').
const secretPrefix = /(?:opc|prt|pls|rpk|adm)_/i;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sha256 = /^[0-9a-f]{64}$/;
const signerSanctions = new Set(['clear', 'sanctioned', 'unavailable']);
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The record checked and turned into a row of `assessments` (columns in table order). */
function rowOf(e: AssessmentRecord): DuckDBValue[] {
  const refuse = (what: string): never => {
    throw new AuditRecordError(`assessment audit record ${typeof e?.requestId === 'string' && !secretPrefix.test(e.requestId) ? e.requestId : '(no request id)'}: ${what}`);
  };
  if (!(e.assessedAt instanceof Date) || Number.isNaN(e.assessedAt.getTime())) refuse('assessedAt must be a valid Date');
  for (const [field, value] of [['requestId', e.requestId], ['accountId', e.accountId], ['identity', e.identity]] as const) {
    if (typeof value !== 'string' || value.length === 0) refuse(`${field} must be a non-empty string`);
  }
  const strings = [e.requestId, e.accountId, e.identity, e.operatorId, e.policyHash, e.signerMatch, ...(Array.isArray(e.reasons) ? e.reasons : [])];
  // Never repeats the value: it may be the secret.
  if (strings.some((s) => typeof s === 'string' && secretPrefix.test(s))) refuse('a field holds a secret (an operator token, refresh token, poll secret or key): record the token id, never the token');
  // A value the appender would refuse would hold up every record behind it, write after write.
  if (strings.some((s) => typeof s === 'string' && (loneSurrogate.test(s) || s.includes('\0')))) refuse('a field is not well-formed text');
  if (e.identityKind === 'wallet') {
    if (parseAddress(e.identity)?.address !== e.identity) refuse('a wallet identity must be a normalised address (EVM lowercased, Solana verbatim)');
  } else if (e.identityKind === 'operator_token') {
    if (e.identity !== 'unknown' && !uuid.test(e.identity)) refuse("an operator_token identity must be the token's id or 'unknown', never the token");
  } else {
    refuse('identityKind must be wallet or operator_token');
  }
  if (e.decision !== 'allow' && e.decision !== 'deny') refuse('decision must be allow or deny');
  if (!Array.isArray(e.reasons) || e.reasons.some((r) => typeof r !== 'string' || r.length === 0)) refuse('reasons must be a list of reason codes');
  if (e.operatorId !== null && (typeof e.operatorId !== 'string' || e.operatorId.length === 0)) refuse('operatorId must be an id or null');
  if (e.policyHash !== null && (typeof e.policyHash !== 'string' || !sha256.test(e.policyHash))) refuse('policyHash must be policyHash() of the policy, or null');
  if (e.signerMatch !== null && (typeof e.signerMatch !== 'string' || e.signerMatch.length === 0)) refuse('signerMatch must be a verdict or null');
  if (e.signerSanctions !== null && !signerSanctions.has(e.signerSanctions)) refuse('signerSanctions must be clear, sanctioned, unavailable or null');
  return [
    at(e.assessedAt),
    e.requestId,
    e.accountId,
    e.identityKind,
    e.identity,
    e.operatorId,
    e.decision,
    listValue([...e.reasons]),
    e.policyHash,
    e.signerMatch,
    e.signerSanctions,
  ];
}

// DuckDB appends a C++ stack trace to internal errors: the first line says what failed.
const firstLine = (err: unknown) => String(err instanceof Error ? err.message : err).split('\n', 1)[0]!;

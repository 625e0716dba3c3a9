// The stored audit trail of assess (`assessments`, written by audit.ts): the newest decisions for
// `reputation assessments`, and the prune-assessments job's deletion past the retention.
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import { at, retentionCutoff } from '../store-values.ts';

export interface AssessmentFilter {
  limit: number;
  accountId?: string;
  decision?: 'allow' | 'deny';
}

/** The newest decisions first, optionally of one account and one decision. */
export function recentAssessments(store: Store, filter: AssessmentFilter): Promise<Row[]> {
  return store.read(sqlFile('identity/assessments_recent'), [filter.accountId ?? null, filter.decision ?? null, filter.limit]);
}


/**
 * Deletes the decisions recorded more than `retentionDays` before `now`, through the operational
 * writer (the one that appends them); returns how many rows went.
 */
export async function pruneAssessments(store: Store, retentionDays: number, now: Date): Promise<{ deleted: number; cutoff: string }> {
  const cutoff = retentionCutoff(now, retentionDays);
  const [row] = await store.writeOperational((tx) => tx.all(sqlFile('identity/assessments_prune'), [at(cutoff)]));
  return { deleted: Number(row?.Count ?? 0), cutoff: cutoff.toISOString() };
}

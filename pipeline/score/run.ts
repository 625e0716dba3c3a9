// A scoring run: one numbered, immutable unit. Its scores and its scoring_runs row commit in one
// transaction, so readers (who always read the newest run) see the previous run or this one,
// never a mix. Older runs' rows are dropped in the same transaction.
import type { Store } from '../store/store.ts';
import { sqlFile } from '../store/sql-files.ts';
import { refreshFacilitators } from '../chain/facilitators.ts';

// v0: the foundation formula; the five-dimension model of docs/scoring.md becomes v1.
export const modelVersion = 'v0';

export interface ScoringRun {
  runId: number;
  addressCount: number;
  scoredAt: string;
}

export async function runScoring(store: Store): Promise<ScoringRun> {
  return store.write(async (tx) => {
    await refreshFacilitators(tx);
    const [last] = await tx.all('SELECT coalesce(max(run_id), 0)::INTEGER AS run_id FROM scoring_runs');
    const runId = Number(last!.run_id) + 1;
    await tx.run(sqlFile('score/address_scores'), [runId]);
    const [run] = await tx.all(
      `INSERT INTO scoring_runs
       SELECT $1, $2, utc_now(), (SELECT count(*) FROM address_scores WHERE run_id = $1)
       RETURNING address_count, strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at`,
      [runId, modelVersion],
    );
    await tx.run('DELETE FROM address_scores WHERE run_id < $1', [runId]);
    return { runId, addressCount: Number(run!.address_count), scoredAt: String(run!.scored_at) };
  });
}

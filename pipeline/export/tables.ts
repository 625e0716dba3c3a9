// What an export holds: one Parquet file per entry, which `reputation sql` registers as a view of the
// same name. Columns and meanings: docs/analytics.md. `address_feedback` is not exported: it holds
// the `reputation` block of the API's records, summed from the exported `feedback`.
import { sqlFile } from '../store/sql-files.ts';

export interface ExportedTable {
  /** File name without `.parquet`, and the view name in `reputation sql`. */
  name: string;
  /** One line for `reputation sql --help`. */
  about: string;
  /** The query producing the file's rows, run inside the export's read transaction. */
  query(runId: number): string;
}

export const exportedTables: readonly ExportedTable[] = [
  { name: 'scores', about: 'per address: top-level score, grade, operator score, chains', query: () => 'SELECT * FROM address_scores' },
  { name: 'chain_scores', about: 'per (chain, address): the five dimensions, score, grade, activity, evidence, feedback', query: () => 'SELECT * FROM chain_scores' },
  { name: 'agent_scores', about: 'per registered ERC-8004 agent: owner, wallet, registration file, score', query: () => 'SELECT * FROM agent_scores' },
  { name: 'feedback_weights', about: "per (agent, client): how much the client's feedback counts, and why", query: () => 'SELECT * FROM feedback_weights' },
  { name: 'runs', about: 'every scoring run up to this export', query: () => 'SELECT * FROM scoring_runs ORDER BY run_id' },
  { name: 'stats', about: 'the statistics of the exported run (JSON bodies by name)', query: (runId) => `SELECT * FROM run_stats WHERE run_id = ${runId}` },
  { name: 'payments', about: 'every x402 payment (chain and imported), one row each', query: () => sqlFile('export/payments') },
  { name: 'feedback', about: 'every ERC-8004 feedback entry (chain and imported), with its revocation', query: () => sqlFile('export/feedback') },
  // Written by the operational writer beside the runs; an export holds the rows committed when it began.
  { name: 'assessments', about: 'every recorded POST /v1/assess decision (the audit trail, no personal data)', query: () => 'SELECT * FROM assessments' },
];

// A scoring run: one numbered, immutable unit (docs/scoring.md). It reads the raw tables as of
// one snapshot, recomputes what it must, and commits the serving tables, its stats and its
// scoring_runs row in one transaction, so readers see the state before the run or after it.
//
// Kinds: `full` recomputes everything; `incremental` only what depends on inputs newer than the
// previous run's watermarks (same results, a fraction of the work); `addresses` rescores given
// addresses on demand (with the addresses whose payments it brings up to date, as every run
// does) and keeps the previous watermarks, so the next incremental run still picks up
// everything else that changed.
import type { Store } from '../store/store.ts';
import type { WriteTx } from '../store/group-commit.ts';
import { sqlFile } from '../store/sql-files.ts';
import { refreshFacilitators } from '../chain/facilitators.ts';
import { parseAddress } from '../address.ts';
import { publishNewestRun } from './newest-run.ts';

export const modelVersion = 'v1';

// Bumped when what scored_payments and its aggregates (payment_pairs, payment_months, and the
// activity facts in chain_scores) hold changes meaning: a run whose predecessor recorded another
// number rebuilds them (and a database from before they existed records none). 5: the facts moved
// from payment_facts into chain_scores (migration 033), whose rows an on-demand run had left
// behind its payments.
const scoredPaymentsVersion = 5;

// Bumped when what registered_agents, rated_feedback, chain_feedback, the stat cells or the
// serving tables' kept rows hold changes meaning: a run whose predecessor recorded another number
// (or none: a database from before them) is a full run, which rebuilds them. 4: address_scores'
// distinct activity (migration 031); 5: agent_scores' agents_sharing_owner counts the agents at
// the payment address, no longer those of the owner.
const keptTablesVersion = 5;

export interface ScoringOptions {
  /** Recompute everything even when an incremental run would do. */
  full?: boolean;
  /** Rescore these addresses now (and what depends on them); unknown ones get a minimal entry. */
  addresses?: string[];
  /** Chain on which an EVM address with no indexed activity gets its row. */
  evmChain?: string;
  /** Told how long each step (sql/score/<step>.sql) took, for profiling. */
  onStep?: (step: string, ms: number) => void;
}

export type RunKind = 'full' | 'incremental' | 'addresses';

export interface ScoringRun {
  runId: number;
  kind: RunKind;
  /** Addresses in the serving state after the run. */
  addressCount: number;
  /** Addresses this run recomputed. */
  rescoredCount: number;
  scoredAt: string;
}

interface Inputs {
  model_version: string;
  facilitators: string;
  cursors: { chain: string; source: string; block: number; hash: string }[];
  imports_through: string | null;
  files_through: string | null;
  evidence_through: string | null;
  known_through: string | null;
  scored_payments?: number;
  kept_tables?: number;
}

interface PreviousRun {
  scoredAt: string;
  inputs: Inputs | null;
}

// Temporary tables a run builds, dropped at its end so their memory is freed.
const runTables = [
  'run_params', 'previous_cursors', 'changed_addresses', 'changed_agents',
  'payment_floor', 'new_imports', 'removed_payments', 'added_payments', 'paid_addresses',
  'touched_ratings', 'scope_agents', 'scope_addresses', 'weight_clients', 'fact_addresses',
  'recount_pairs', 'recount_months', 'stored_pairs', 'changed_pairs',
  'fresh_months', 'replaced_months', 'changed_months', 'stored_chain_rows', 'new_facts',
  'feedback_addresses', 'run_feedback', 'run_feedback_weights', 'kept_feedback_counts', 'stored_weights',
  'replaced_addresses', 'multi_chain', 'multi_chain_activity', 'related_agents', 'reflagged_feedback', 'run_address_cells', 'run_chain_cells',
];

// Stores whose writer connection holds the model's macros (sql/score/macros.sql): temporary
// macros outlive a transaction once it commits, and creating them costs every run a few
// milliseconds of planning. Marked only after a commit: a rolled-back run takes them with it.
const macrosCreated = new WeakSet<Store>();

export async function runScoring(store: Store, options: ScoringOptions = {}): Promise<ScoringRun> {
  const addresses = (options.addresses ?? []).map((a) => {
    const parsed = parseAddress(a);
    if (!parsed) throw new Error(`not an EVM or Solana address: ${a}`);
    return parsed;
  });
  const createMacros = !macrosCreated.has(store);
  const committed = await store.write(async (tx) => {
    await refreshFacilitators(tx);
    if (createMacros) await step(tx, 'macros', options.onStep);
    const [last] = await tx.all(
      `SELECT run_id, strftime(scored_at, '%Y-%m-%d %H:%M:%S.%f') AS scored_at, inputs::VARCHAR AS inputs
         FROM scoring_runs ORDER BY run_id DESC LIMIT 1`,
    );
    // Past every run id the chain rows carry as well: a full run tells its new rows from the old
    // by the run id (sql/score/chain_scores.sql), even if scoring_runs lost rows.
    const [{ newest }] = (await tx.all('SELECT coalesce(max(run_id), 0)::INTEGER AS newest FROM chain_scores')) as [{ newest: number }];
    const runId = Math.max(Number(last?.run_id ?? 0), newest) + 1;
    const previous: PreviousRun | null = last ? { scoredAt: String(last.scored_at), inputs: last.inputs ? JSON.parse(String(last.inputs)) : null } : null;
    for (const parsed of addresses) {
      await tx.run(sqlFile('serve/known_address_insert'), [parsed.address, parsed.family, 'cli']);
    }
    const [{ inputs: inputsText }] = (await tx.all(sqlFile('score/inputs'), [modelVersion])) as [{ inputs: string }];
    const current: Inputs = { ...(JSON.parse(inputsText) as Inputs), scored_payments: scoredPaymentsVersion, kept_tables: keptTablesVersion };

    const { kind, rebuildPayments } = await chooseKind(tx, options, addresses.length > 0, previous, current);
    // A rebuild reads everything: no watermarks.
    const since = rebuildPayments ? undefined : previous?.inputs;
    await tx.run(
      `CREATE OR REPLACE TEMP TABLE run_params AS
       SELECT $1::INTEGER AS run_id, $2::BOOLEAN AS is_full, $3::BOOLEAN AS rebuild_payments,
              $4::VARCHAR AS model_version, $5::VARCHAR AS evm_chain, utc_now() AS scored_at,
              coalesce($6::TIMESTAMP, '-infinity'::TIMESTAMP) AS imports_through,
              coalesce($7::TIMESTAMP, '-infinity'::TIMESTAMP) AS files_through,
              coalesce($8::TIMESTAMP, '-infinity'::TIMESTAMP) AS evidence_through,
              coalesce($9::TIMESTAMP, '-infinity'::TIMESTAMP) AS known_through`,
      [runId, kind === 'full', rebuildPayments, modelVersion, options.evmChain ?? 'base',
       since?.imports_through ?? null, since?.files_through ?? null,
       since?.evidence_through ?? null, since?.known_through ?? null],
    );
    // A constant to the planner, unlike a subquery on run_params. A filter on the run's scope is
    // written as twins, `WHERE getvariable('is_full')` and `WHERE NOT getvariable('is_full') AND
    // x IN (…scope…)`: the planner drops the twin that cannot match. `is_full OR x IN (…)` would
    // still build the join over every address in a full run. The run id too: a filter on it
    // skips by their zone maps every row group written before this run. And whether the payments
    // are rebuilt, which drops the reads of what a rebuild recomputes.
    await tx.run(`SET VARIABLE is_full = (SELECT is_full FROM run_params); SET VARIABLE run_id = (SELECT run_id FROM run_params);
                  SET VARIABLE rebuild_payments = (SELECT rebuild_payments FROM run_params)`);
    if (kind === 'full') await step(tx, 'clear_full', options.onStep);
    if (rebuildPayments) await step(tx, 'clear_payments', options.onStep);

    // The agents whose rows this run rebuilds (sql/score/agents.sql): every agent in a full run.
    if (kind === 'incremental') await step(tx, 'changed_agents', options.onStep);
    else await tx.run('CREATE OR REPLACE TEMP TABLE changed_agents (chain VARCHAR, agent_id HUGEINT)');
    // Agents and their feedback are rebuilt for the changed agents only (sql/score/feedback_unchanged.sql).
    const [{ n: changedAgents }] = (await tx.all('SELECT count(*)::INTEGER AS n FROM changed_agents')) as [{ n: number }];
    const agentsChanged = kind === 'full' || changedAgents > 0;
    if (agentsChanged) await step(tx, 'agents', options.onStep);
    await step(tx, 'payments', options.onStep);
    // The scope comes before the aggregates: the pairs they read are those of the paid addresses
    // and of the clients whose weight the run computes again, in one scan (sql/score/pairs.sql).
    if (kind === 'full') {
      await step(tx, 'scope_full', options.onStep);
    } else {
      if (kind === 'incremental') {
        await step(tx, 'changed', options.onStep);
      } else {
        await tx.run('CREATE OR REPLACE TEMP TABLE changed_addresses (address VARCHAR)');
        await tx.append('changed_addresses', addresses.map((a) => [a.address]));
        await step(tx, 'pending_addresses', options.onStep);
      }
      await step(tx, 'scope', options.onStep);
    }
    const feedback = agentsChanged ? 'feedback' : 'feedback_unchanged';
    for (const name of ['pairs', 'payment_facts', 'facts', feedback, 'weights', 'agent_scores', 'chain_scores', 'address_scores', 'records', 'stats']) {
      await step(tx, name, options.onStep);
    }

    // An `addresses` run keeps the previous watermarks: it did not look at everything newer.
    const recorded = kind === 'addresses' ? (previous?.inputs ? JSON.stringify(previous.inputs) : null) : JSON.stringify(current);
    // The addresses served are what the stat cells count (sql/score/stats.sql), not a count of a
    // million rows; the rescored ones the rows this run wrote, whose run id the zone maps find.
    const [run] = await tx.all(
      `INSERT INTO scoring_runs
       SELECT p.run_id, p.model_version, p.scored_at,
              (SELECT coalesce(sum(n), 0) FROM address_stat_cells), $1,
              (SELECT count(*) FROM address_scores WHERE run_id = getvariable('run_id')), $2::JSON
         FROM run_params p
       RETURNING address_count, rescored_count, strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at`,
      [kind, recorded],
    );
    await tx.run(runTables.map((table) => `DROP TABLE IF EXISTS temp.${table}`).join(';\n'));
    return {
      runId,
      kind,
      addressCount: Number(run!.address_count),
      rescoredCount: Number(run!.rescored_count),
      scoredAt: String(run!.scored_at),
    };
  });
  macrosCreated.add(store);
  // Committed: in-process caches of served records (api/reputation/cache.ts) drop the old run's.
  publishNewestRun(store, committed.runId);
  return committed;
}

/** Runs sql/score/<name>.sql; a failure names the file. */
async function step(tx: WriteTx, name: string, onStep?: ScoringOptions['onStep']): Promise<void> {
  const started = performance.now();
  try {
    await tx.run(sqlFile(`score/${name}`));
  } catch (err) {
    throw new Error(`sql/score/${name}.sql: ${(err as Error).message}`, { cause: err });
  }
  onStep?.(name, performance.now() - started);
}

/**
 * Full unless an incremental (or on-demand) run is known to give the same result; and whether
 * scored_payments must be rebuilt from the view rather than brought up to date from the previous
 * run's watermarks (previous_cursors, left empty for a rebuild so every block counts as new).
 */
async function chooseKind(
  tx: WriteTx,
  options: ScoringOptions,
  onDemand: boolean,
  previous: PreviousRun | null,
  current: Inputs,
): Promise<{ kind: RunKind; rebuildPayments: boolean }> {
  const before = previous?.inputs;
  await tx.run('CREATE OR REPLACE TEMP TABLE previous_cursors (chain VARCHAR, source VARCHAR, block_number BIGINT, block_hash VARCHAR)');
  // A new facilitator list changes which payments are verified, everywhere.
  let rebuildPayments = !before || before.facilitators !== current.facilitators || before.scored_payments !== current.scored_payments;
  if (!rebuildPayments) {
    await tx.append('previous_cursors', before!.cursors.map((c) => [c.chain, c.source, c.block, c.hash]));
    const [check] = await tx.all(sqlFile('score/previous_cursors_intact'), [previous!.scoredAt]);
    if (Number(check!.broken) > 0) {
      rebuildPayments = true;
      await tx.run('DELETE FROM previous_cursors');
    }
  }
  // A new model changes every score; so does anything that rebuilds the payments, and a layout
  // of the kept agents and feedback the previous run did not write.
  const full = options.full || rebuildPayments || before!.model_version !== current.model_version || before!.kept_tables !== current.kept_tables;
  if (full) return { kind: 'full', rebuildPayments };
  return { kind: onDemand ? 'addresses' : 'incremental', rebuildPayments };
}

// Invariants of what scoring runs keep between runs (sql/score/payments.sql, pairs.sql, payment_facts.sql).
import { expect } from 'vitest';
import type { Store } from '../../pipeline/store/store.ts';

// Everything a run keeps or materialises, without the run ids (which differ between paths).
const servingTables = {
  registered_agents: 'SELECT * FROM registered_agents ORDER BY chain, agent_id',
  rated_feedback: 'SELECT * FROM rated_feedback ORDER BY chain, agent_id, client_address, feedback_index',
  chain_feedback: 'SELECT * FROM chain_feedback ORDER BY chain, address',
  agent_scores: 'SELECT * EXCLUDE (run_id) FROM agent_scores ORDER BY chain, agent_id',
  feedback_weights: 'SELECT * EXCLUDE (run_id) FROM feedback_weights ORDER BY chain, agent_id, client_address',
  chain_scores: 'SELECT * EXCLUDE (run_id) FROM chain_scores ORDER BY chain, address',
  address_scores: 'SELECT * EXCLUDE (run_id) FROM address_scores ORDER BY address',
  address_feedback: 'SELECT * EXCLUDE (run_id) FROM address_feedback ORDER BY address',
  address_stat_cells: 'SELECT * FROM address_stat_cells ORDER BY ALL',
  chain_stat_cells: 'SELECT * FROM chain_stat_cells ORDER BY ALL',
};

export async function servingState(store: Store): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(servingTables)) state[name] = await store.read(sql);
  return state;
}

// The payments table runs keep up to date by deltas holds exactly what the view says, and its
// pair and month aggregates exactly what summing it gives.
export async function expectPaymentsMatchView(store: Store) {
  const columns = 'chain, tx_hash, log_index, payer, payee, value, block_time, verified, origin, block_number, import_id';
  const [diff] = await store.read(
    `SELECT (SELECT count(*) FROM (SELECT ${columns} FROM scored_payments EXCEPT ALL SELECT ${columns} FROM x402_payments))::INTEGER AS extra,
            (SELECT count(*) FROM (SELECT ${columns} FROM x402_payments EXCEPT ALL SELECT ${columns} FROM scored_payments))::INTEGER AS missing,
            (SELECT count(*) FROM scored_payments)::INTEGER AS n`,
  );
  expect(diff).toMatchObject({ extra: 0, missing: 0 });
  expect(diff!.n).toBeGreaterThan(0);
  // One row per transfer: sql/score/payments.sql finds what a run removed and added by anti joins
  // on the key, which give what EXCEPT ALL would only while no key repeats.
  const [keys] = await store.read(
    `SELECT count(*)::INTEGER AS n, count(DISTINCT (chain, tx_hash, log_index))::INTEGER AS distinct_keys FROM x402_payments`,
  );
  expect(keys!.distinct_keys).toBe(keys!.n);
  // And its aggregates hold what they would if summed from it now.
  const pairs = `SELECT chain, payer, payee, count(*) AS payments, count(*) FILTER (verified) AS verified_payments,
                        sum(value) AS volume, sum(value) FILTER (verified) AS verified_volume, min(block_time) AS first_at,
                        max(block_time) AS last_at, min(block_time) FILTER (verified) AS first_verified_at,
                        max(block_time) FILTER (verified) AS last_verified_at
                   FROM scored_payments GROUP BY ALL`;
  const months = `SELECT chain, address, date_trunc('month', block_time)::DATE AS month, bit_or(1 << (day(block_time) - 1))::INTEGER AS days
                    FROM (SELECT chain, unnest([payer, payee]) AS address, block_time FROM scored_payments) GROUP BY ALL`;
  const [aggregates] = await store.read(
    `SELECT (SELECT count(*) FROM (SELECT * FROM payment_pairs EXCEPT ALL ${pairs}))::INTEGER AS extra_pairs,
            (SELECT count(*) FROM (${pairs} EXCEPT ALL SELECT * FROM payment_pairs))::INTEGER AS missing_pairs,
            (SELECT count(*) FROM (SELECT * FROM payment_months EXCEPT ALL ${months}))::INTEGER AS extra_months,
            (SELECT count(*) FROM (${months} EXCEPT ALL SELECT * FROM payment_months))::INTEGER AS missing_months`,
  );
  expect(aggregates).toEqual({ extra_pairs: 0, missing_pairs: 0, extra_months: 0, missing_months: 0 });
  // And the facts kept per address in its chain rows (sql/score/payment_facts.sql; the rows with
  // candidate payments) what the spec's definitions give when counted naively over every payment,
  // distinct counterparties, days and months included: after any run, on-demand ones too.
  const facts = `
    WITH sides AS (
      SELECT chain, payer AS address, payee AS counterparty, true AS paid, verified, value, block_time FROM scored_payments
      UNION ALL SELECT chain, payee, payer, false, verified, value, block_time FROM scored_payments
    )
    SELECT chain, address,
           count(*) FILTER (paid)::INTEGER, count(*) FILTER (NOT paid)::INTEGER,
           count(*) FILTER (paid AND verified)::INTEGER, count(*) FILTER (NOT paid AND verified)::INTEGER,
           count(DISTINCT counterparty)::INTEGER, count(DISTINCT counterparty) FILTER (verified)::INTEGER,
           count(DISTINCT block_time::DATE)::INTEGER, count(DISTINCT date_trunc('month', block_time))::INTEGER,
           sum(value)::DOUBLE / 1e6, coalesce(sum(value) FILTER (verified)::DOUBLE / 1e6, 0),
           min(block_time), max(block_time), min(block_time) FILTER (verified), max(block_time) FILTER (verified)
      FROM sides GROUP BY chain, address`;
  const stored = `
    SELECT chain, address, candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee,
           counterparties_count, verified_counterparties_count, active_days, active_months, volume_usdc,
           verified_volume_usdc, first_candidate_tx_at, last_candidate_tx_at, first_verified_tx_at, last_verified_tx_at
      FROM chain_scores WHERE candidate_as_payer + candidate_as_payee > 0`;
  const [kept] = await store.read(
    `SELECT (SELECT count(*) FROM (${stored} EXCEPT ALL SELECT * FROM (${facts})))::INTEGER AS extra_facts,
            (SELECT count(*) FROM (SELECT * FROM (${facts}) EXCEPT ALL ${stored}))::INTEGER AS missing_facts`,
  );
  expect(kept).toEqual({ extra_facts: 0, missing_facts: 0 });
}

// An address's activity over all its chains (address_scores, sql/score/address_scores.sql) counts
// a counterparty, a day and a month once however many chains it is on, as a naive count over
// every payment does. Holds after a full or incremental run (an on-demand run leaves the addresses
// it did not rescore behind their payments).
export async function expectAddressActivityMatchesPayments(store: Store): Promise<void> {
  const naive = `
    WITH sides AS (
      SELECT payer AS address, payee AS counterparty, block_time FROM scored_payments
      UNION ALL SELECT payee, payer, block_time FROM scored_payments
    )
    SELECT address, count(DISTINCT counterparty)::INTEGER, count(DISTINCT block_time::DATE)::INTEGER,
           count(DISTINCT date_trunc('month', block_time))::INTEGER
      FROM sides GROUP BY address`;
  const kept = `SELECT address, counterparties_count, active_days, active_months FROM address_scores
                 WHERE candidate_as_payer + candidate_as_payee > 0`;
  const [diff] = await store.read(
    `SELECT (SELECT count(*) FROM (${kept} EXCEPT ALL SELECT * FROM (${naive})))::INTEGER AS extra,
            (SELECT count(*) FROM (SELECT * FROM (${naive}) EXCEPT ALL ${kept}))::INTEGER AS missing`,
  );
  expect(diff).toEqual({ extra: 0, missing: 0 });
}

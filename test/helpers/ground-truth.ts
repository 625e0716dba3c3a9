// Reads back from the store what the simulator's ground truth states, in the truth's own shape,
// so ingestion can be compared with it exactly.
import type { Store } from '../../pipeline/store/store.ts';
import type { SimulationTruth } from '../../devnet/simulate-truth.ts';

export async function storedAddressFacts(store: Store) {
  const rows = await store.read(`
    WITH sides AS (
      SELECT payer AS address, payee AS other, 'payer' AS role, value, verified, block_time FROM x402_payments
      UNION ALL
      SELECT payee, payer, 'payee', value, verified, block_time FROM x402_payments
    )
    SELECT address,
           count(*) FILTER (role = 'payer')::INTEGER AS candidate_as_payer,
           count(*) FILTER (role = 'payee')::INTEGER AS candidate_as_payee,
           count(*) FILTER (role = 'payer' AND verified)::INTEGER AS verified_as_payer,
           count(*) FILTER (role = 'payee' AND verified)::INTEGER AS verified_as_payee,
           coalesce(sum(value) FILTER (role = 'payer'), 0)::VARCHAR AS volume_as_payer,
           coalesce(sum(value) FILTER (role = 'payee'), 0)::VARCHAR AS volume_as_payee,
           list_sort(list(DISTINCT other)) AS counterparties,
           count(DISTINCT block_time::DATE)::INTEGER AS active_days,
           count(DISTINCT strftime(block_time, '%Y-%m'))::INTEGER AS active_months
      FROM sides GROUP BY address ORDER BY address`);
  return Object.fromEntries(rows.map(({ address, ...facts }) => [String(address), facts]));
}

export function truthAddressFacts(truth: SimulationTruth) {
  return Object.fromEntries(
    Object.entries(truth.addresses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([address, f]) => {
        const { address: _drop, ...facts } = f as unknown as Record<string, unknown>;
        return [address, facts];
      }),
  );
}

export async function storedAgents(store: Store) {
  const rows = await store.read(`
    WITH uris AS (
      SELECT agent_id, agent_uri AS uri, block_number, log_index FROM agent_registrations
      UNION ALL SELECT agent_id, new_uri, block_number, log_index FROM agent_uri_updates
    ),
    owners AS (SELECT agent_id, arg_max(to_address, block_number * 100000 + log_index) AS owner FROM agent_transfers GROUP BY agent_id),
    wallets AS (
      SELECT agent_id, arg_max(metadata_value, block_number * 100000 + log_index) AS wallet
        FROM agent_metadata WHERE metadata_key = 'agentWallet' GROUP BY agent_id
    )
    SELECT u.agent_id::INTEGER AS "agentId", o.owner,
           arg_max(u.uri, u.block_number * 100000 + u.log_index) AS "agentURI",
           CASE WHEN w.wallet IS NULL OR w.wallet = '0x' THEN NULL ELSE w.wallet END AS "agentWallet"
      FROM uris u JOIN owners o USING (agent_id) LEFT JOIN wallets w USING (agent_id)
     GROUP BY u.agent_id, o.owner, w.wallet ORDER BY "agentId"`);
  return rows;
}

export function truthAgents(truth: SimulationTruth) {
  return truth.agents
    .map((a) => ({ agentId: a.agentId, owner: a.owner, agentURI: a.agentURI, agentWallet: a.agentWallet }))
    .sort((a, b) => a.agentId - b.agentId);
}

export async function storedFeedback(store: Store) {
  return store.read(`
    SELECT f.agent_id::INTEGER AS "agentId", f.client_address AS client, f.feedback_index::INTEGER AS "feedbackIndex",
           f.value::INTEGER AS value, f.value_decimals AS "valueDecimals", f.tag1, f.tag2, f.endpoint,
           f.feedback_uri AS "feedbackURI", f.feedback_hash AS "feedbackHash",
           EXISTS (SELECT 1 FROM feedback_revocations r WHERE r.agent_id = f.agent_id AND r.client_address = f.client_address AND r.feedback_index = f.feedback_index) AS revoked
      FROM feedback f ORDER BY "agentId", client, "feedbackIndex"`);
}

export function truthFeedback(truth: SimulationTruth) {
  return truth.feedback
    .map(({ sybil: _s, blockNumber: _b, ...f }) => f)
    .sort((a, b) => a.agentId - b.agentId || a.client.localeCompare(b.client) || a.feedbackIndex - b.feedbackIndex);
}

export async function storedCounts(store: Store) {
  const [row] = await store.read(`
    SELECT (SELECT count(*) FROM x402_payments)::INTEGER AS candidate,
           (SELECT count(*) FROM x402_payments WHERE verified)::INTEGER AS verified,
           (SELECT count(*) FROM feedback_responses)::INTEGER AS responses,
           (SELECT count(*) FROM agent_transfers WHERE from_address <> '0x0000000000000000000000000000000000000000')::INTEGER AS "agentTransfers",
           (SELECT count(*) FROM agent_uri_updates)::INTEGER AS "uriUpdates"`);
  return row;
}

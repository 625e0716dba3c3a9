// A small scored state written straight into the serving tables, as a scoring run leaves them,
// plus raw payments and feedback: what the export tests need without running the scoring SQL.
import type { Store } from '../../pipeline/store/store.ts';

export const addresses = {
  agentWallet: '0x1111111111111111111111111111111111111111',
  merchant: '0x2222222222222222222222222222222222222222',
  payer: '0x3333333333333333333333333333333333333333',
  facilitator: '0x4444444444444444444444444444444444444444',
  sybil: '0x5555555555555555555555555555555555555555',
} as const;

/** A value above 2^53: a DOUBLE could not hold it exactly. */
export const largeValue = '123456789012345678901';

/**
 * Records scoring run `runId` and (re)writes the serving rows of `scored` (addresses with their
 * score), as an incremental run does: rows of other addresses keep their earlier run_id.
 */
export async function writeScoringRun(store: Store, runId: number, scored: Record<string, number>): Promise<void> {
  const values = Object.entries(scored)
    .map(([address, score]) => `('${address}', ${score})`)
    .join(', ');
  await store.write(async (tx) => {
    await tx.run(
      `INSERT INTO scoring_runs (run_id, model_version, scored_at, address_count, kind, rescored_count, inputs)
       VALUES ($1, 'v1', TIMESTAMP '2026-01-01 00:00:00' + to_minutes($1::BIGINT), $2, $3, $2, '{"payments": 2}')`,
      [runId, Object.keys(scored).length, runId === 1 ? 'full' : 'incremental'],
    );
    for (const table of ['chain_scores', 'address_scores']) {
      await tx.run(`DELETE FROM ${table} WHERE address IN (SELECT s.address FROM (VALUES ${values}) s(address, score))`);
    }
    await tx.run(`
      INSERT INTO chain_scores BY NAME
      SELECT ${runId} AS run_id, 'base' AS chain, address, score,
             CASE WHEN score >= 90 THEN 'A' WHEN score >= 75 THEN 'B' WHEN score >= 50 THEN 'C' WHEN score >= 25 THEN 'D' ELSE 'F' END AS grade,
             0.8 AS confidence, 60.0 AS identity, 70.0 AS activity, 40.0 AS capability, 30.0 AS reach, 50.0 AS trust,
             'agent' AS entity_type, 0.9 AS entity_confidence, true AS is_known, address = '${addresses.agentWallet}' AS is_known_erc8004_agent,
             ['verified_payments']::VARCHAR[] AS reasons, 1 AS agent_count,
             2 AS candidate_as_payer, 3 AS candidate_as_payee, 1 AS verified_as_payer, 2 AS verified_as_payee,
             4 AS counterparties_count, 2 AS verified_counterparties_count, 3 AS active_days, 1 AS active_months,
             12.5 AS volume_usdc, 10.0 AS verified_volume_usdc, 2 AS feedback_count, 2 AS client_count, 0.5 AS feedback_weight
        FROM (VALUES ${values}) s(address, score)`);
    await tx.run(`
      INSERT INTO address_scores BY NAME
      SELECT ${runId} AS run_id, address, score,
             CASE WHEN score >= 90 THEN 'A' WHEN score >= 75 THEN 'B' WHEN score >= 50 THEN 'C' WHEN score >= 25 THEN 'D' ELSE 'F' END AS grade,
             ['base']::VARCHAR[] AS chains, NULL AS operator_score, NULL AS operator_grade, 0 AS agent_count, []::VARCHAR[] AS chains_active
        FROM (VALUES ${values}) s(address, score)`);
    await tx.run(`INSERT INTO run_stats VALUES ($1, 'v2', $2)`, [runId, JSON.stringify({ total_scored: Object.keys(scored).length, run: runId })]);
    await tx.run(`INSERT INTO address_feedback VALUES ($1, 'x', 0, 0, NULL, NULL, NULL, NULL, false)`, [runId]);
  });
}

/** One agent with two clients' feedback (one revoked, one from a file), and two x402 payments. */
export async function writeFacts(store: Store): Promise<void> {
  const { agentWallet, merchant, payer, facilitator, sybil } = addresses;
  await store.write(async (tx) => {
    await tx.run(`INSERT INTO facilitators VALUES ('base', '${facilitator}', 'test')`);
    await tx.run(`
      INSERT INTO imported_transfers VALUES
        ('imp_1', 'base', 100, TIMESTAMP '2026-01-01 10:00:00', '0x${'a'.repeat(64)}', 1, '0xusdc', '${payer}', '${agentWallet}', 2500000, '${facilitator}', true),
        ('imp_1', 'base', 101, TIMESTAMP '2026-01-02 10:00:00', '0x${'b'.repeat(64)}', 1, '0xusdc', '${payer}', '${merchant}', ${largeValue}, '${payer}', true),
        ('imp_1', 'base', 102, TIMESTAMP '2026-01-02 11:00:00', '0x${'c'.repeat(64)}', 1, '0xusdc', '${payer}', '${merchant}', 7, '${payer}', false)`);
    await tx.run(`INSERT INTO chain_blocks VALUES ('base', 200, '0x${'d'.repeat(64)}', TIMESTAMP '2026-01-03 00:00:00', 'reputation')`);
    await tx.run(`
      INSERT INTO feedback VALUES
        ('base', 200, '0x${'e'.repeat(64)}', 0, '0xrep', 7, '${payer}', 1, 875, 1, 'starred', '', '', '', ''),
        ('base', 200, '0x${'e'.repeat(64)}', 1, '0xrep', 7, '${sybil}', 1, 100, 0, 'starred', '', '', '', '')`);
    await tx.run(`INSERT INTO feedback_revocations VALUES ('base', 200, '0x${'f'.repeat(64)}', 2, '0xrep', 7, '${sybil}', 1)`);
    await tx.run(`INSERT INTO imported_feedback VALUES ('imp_2', 'base', '0xrep', 7, '${merchant}', 1, 60, 0, 'uptime', '', TIMESTAMP '2026-01-04 00:00:00', false)`);
    await tx.run(`
      INSERT INTO agent_scores BY NAME
      SELECT 1 AS run_id, 'base' AS chain, '0xid' AS registry, 7 AS agent_id, '${merchant}' AS owner, '${agentWallet}' AS agent_wallet,
             'Seven' AS name, 'metadata_quality real' AS description, 'https://seven.example/agent.json' AS agent_uri,
             'real' AS metadata_quality, true AS has_endpoint, 1 AS agents_sharing_owner, 82 AS score, 'B' AS grade, 0.7 AS confidence,
             60.0 AS identity, 70.0 AS activity, 40.0 AS capability, 30.0 AS reach, 80.0 AS trust, 'agent' AS entity_type,
             2 AS feedback_count, 2 AS client_count, 1.0 AS feedback_weight, 87.5 AS weighted_feedback_avg`);
    await tx.run(`
      INSERT INTO feedback_weights VALUES
        (1, 'base', '0xid', 7, '${payer}', 1, 87.5, 1.0, 'paid_verified'),
        (1, 'base', '0xid', 7, '${merchant}', 1, 60.0, 0.5, 'active_elsewhere')`);
  });
}

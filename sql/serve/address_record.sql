-- The records of one address as the API serves them (spec 2.7 free and paid shapes, and the facts
-- of the 2.8 view), shaped from the serving tables its newest scoring run left, with that run, in
-- one statement so all of it comes from one snapshot. No row when the address has no scores.
-- scored_at, status and updated_at are null here: they are filled in from the newest run when
-- served (api/reputation/record.ts); so are operator_score and reputation when the address has no
-- agents or no feedback (the served record omits them). Needs the scoring macros
-- (sql/score/macros.sql) on the connection. $1 is the address.
WITH run AS (SELECT * FROM scoring_runs ORDER BY run_id DESC LIMIT 1),
scores AS (SELECT * FROM address_scores WHERE address = $1),
chain_rows AS (SELECT * FROM chain_scores WHERE address = $1),
chain_parts AS (
  SELECT chain, score,
         {'chain': chain,
          'score': {'value': score, 'grade': grade, 'scored_at': NULL::VARCHAR, 'status': NULL::VARCHAR, 'version': (SELECT model_version FROM run)},
          'classification': {'entity_type': entity_type}} AS free,
         {'chain': chain,
          'score': {'value': score, 'grade': grade, 'scored_at': NULL::VARCHAR, 'status': NULL::VARCHAR, 'version': (SELECT model_version FROM run),
                    'confidence': confidence,
                    'dimensions': {'identity': identity, 'activity': activity, 'capability': capability, 'reach': reach, 'trust': trust}},
          'classification': {'entity_type': entity_type, 'confidence': entity_confidence, 'is_known': is_known,
                             'is_known_erc8004_agent': is_known_erc8004_agent,
                             'has_candidate_payment_activity': candidate_as_payer + candidate_as_payee > 0,
                             'has_verified_payment_activity': verified_as_payer + verified_as_payee > 0,
                             'reasons': reasons},
          'identity': {'ens_name': ens_name, 'website_url': website_url, 'github_url': github_url},
          'activity': {'total_candidate_transactions': candidate_as_payer + candidate_as_payee,
                       'total_verified_transactions': verified_as_payer + verified_as_payee,
                       'as_candidate_payer': candidate_as_payer, 'as_candidate_payee': candidate_as_payee,
                       'as_verified_payer': verified_as_payer, 'as_verified_payee': verified_as_payee,
                       'counterparties_count': counterparties_count, 'active_days': active_days, 'active_months': active_months,
                       'first_candidate_tx_at': iso(first_candidate_tx_at), 'last_candidate_tx_at': iso(last_candidate_tx_at),
                       'first_verified_tx_at': iso(first_verified_tx_at), 'last_verified_tx_at': iso(last_verified_tx_at)},
          'evidence_summary': {'metadata_kind': metadata_kind, 'has_a2a_agent_card': has_a2a_agent_card, 'website_url': website_url,
                               'website_reachable': website_reachable, 'website_mentions_mcp': website_mentions_mcp,
                               'website_mentions_x402': website_mentions_x402, 'github_url': github_url, 'github_stars': github_stars}} AS paid
    FROM chain_rows
),
chains AS (           -- best chain first
  SELECT list(free ORDER BY score DESC, chain) AS free, list(paid ORDER BY score DESC, chain) AS paid,
         list(chain ORDER BY score DESC, chain) AS names
    FROM chain_parts
),
totals AS (           -- across chains, for the 2.8 view
  SELECT sum(candidate_as_payer + candidate_as_payee)::BIGINT AS total_transactions,
         sum(verified_as_payer + verified_as_payee)::BIGINT   AS verified_transactions,
         round(sum(volume_usdc), 6)                            AS total_volume_usdc,
         iso(min(first_candidate_tx_at))                       AS first_seen,
         iso(max(last_candidate_tx_at))                        AS last_seen
    FROM chain_rows
),
agent_identity AS (   -- the 2.8 identity: what the agents it owns or is paid for registered, per chain
  SELECT chain, max(ens_name) AS ens_name, max(github_url) AS github_url,
         bool_or(website_reachable) AS website_reachable   -- null: never checked
    FROM registered_agents WHERE owner = $1 OR pay_to = $1
   GROUP BY chain
),
related_agents AS (   -- agents it owns or is paid for
  SELECT DISTINCT chain, agent_id, name, score, grade
    -- owner = $1 OR coalesce(agent_wallet, owner) = $1: one scan of the agents (migration 030)
    FROM agent_scores WHERE owner = $1 OR agent_wallet = $1
),
agent_lists AS (
  SELECT coalesce(list({'token_id': agent_id, 'chain': chain, 'name': name, 'score': score, 'grade': grade} ORDER BY chain, agent_id), []) AS agents,
         coalesce(list_sort(list_distinct(list(chain))), []) AS chains_registered
    FROM related_agents
),
reputation AS (       -- feedback to those agents, all chains (sql/score/records.sql)
  SELECT {'feedback_count': feedback_count, 'client_count': client_count, 'trust_avg': trust_avg, 'uptime_avg': uptime_avg,
          'activity_avg': activity_avg, 'last_feedback_at': iso(last_feedback_at)} AS block
    FROM address_feedback WHERE address = $1
),
base AS (
  SELECT s.address, s.score, s.grade, s.operator_score, s.operator_grade, s.agent_count, s.chains_active,
         c.free AS free_chains, c.paid AS paid_chains, c.names AS chains, al.agents,
         (SELECT block FROM reputation) AS reputation,
         list_concat(
           ['Payment activity is candidate x402 activity (EIP-3009 authorised transfers and Permit2 settlements); the verified subset was submitted by known facilitators.',
            'Scores are computed in batch runs and may lag the chain.'],
           CASE WHEN t.verified_transactions = 0 AND t.total_transactions > 0
                THEN ['No facilitator-settled payments: activity is unverified.'] ELSE [] END,
           CASE WHEN (SELECT weightless_feedback FROM address_feedback WHERE address = $1)
                THEN ['Some ERC-8004 feedback comes from clients with no payment history and carries no weight.'] ELSE [] END
         ) AS caveats
    FROM scores s, chains c, totals t, agent_lists al
),
views AS (            -- the 2.8 view's facts: over all chains (chain null; distinct counterparties,
                      -- days and months from address_scores), and of each chain alone (`chain`)
  SELECT NULL::VARCHAR AS chain, t.total_transactions, s.counterparties_count AS unique_counterparties,
         t.total_volume_usdc, t.first_seen, t.last_seen, s.active_days, s.active_months,
         i.ens_name, i.github_url, i.website_reachable, al.chains_registered, s.agent_count > 0 AS owns_agents
    FROM scores s, totals t, agent_lists al,
         (SELECT max(ens_name) AS ens_name, max(github_url) AS github_url, bool_or(website_reachable) AS website_reachable FROM agent_identity) i
  UNION ALL
  SELECT r.chain, r.candidate_as_payer + r.candidate_as_payee, r.counterparties_count,
         round(r.volume_usdc, 6), iso(r.first_candidate_tx_at), iso(r.last_candidate_tx_at), r.active_days, r.active_months,
         i.ens_name, i.github_url, i.website_reachable, list_filter(al.chains_registered, x -> x = r.chain),
         list_contains(s.chains_active, r.chain)
    FROM chain_rows r CROSS JOIN scores s CROSS JOIN agent_lists al LEFT JOIN agent_identity i ON i.chain = r.chain
),
view_facts AS (
  SELECT list({'chain': chain,
               'metrics': {'total_transactions': total_transactions, 'unique_counterparties': unique_counterparties,
                           'total_volume_usdc': total_volume_usdc, 'first_seen': first_seen, 'last_seen': last_seen,
                           'active_days': active_days, 'active_months': active_months},
               'factors': {'volume': round(100 * saturate(total_volume_usdc, 10000), 1),
                           'diversity': round(100 * saturate(unique_counterparties, 50), 1),
                           'consistency': round(50 * least(1.0, active_days / 60) + 50 * least(1.0, active_months / 6), 1)},
               'identity': CASE WHEN owns_agents OR len(chains_registered) > 0 OR ens_name IS NOT NULL THEN
                             {'ens_name': ens_name, 'registered_agent': len(chains_registered) > 0,
                              'chains_registered': chains_registered,
                              'endpoint_status': CASE WHEN website_reachable THEN 'reachable' WHEN NOT website_reachable THEN 'unreachable' ELSE 'unknown' END,
                              'github_repo': github_url} END}) AS views
    FROM views
)
SELECT run.run_id, run.model_version, strftime(run.scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at, run.inputs::VARCHAR AS inputs,
       to_json({'score': {'value': score, 'grade': grade, 'scored_at': NULL::VARCHAR, 'status': NULL::VARCHAR, 'version': run.model_version},
                'verification_level': 'none',
                'chains': free_chains,
                'operator_score': CASE WHEN operator_score IS NOT NULL THEN {'score': operator_score, 'grade': operator_grade} END,
                'agents': agents,
                'data_semantics': 'candidate_payment_activity_with_verified_subset',
                'caveats': caveats,
                'updated_at': NULL::VARCHAR})::VARCHAR AS record_free,
       to_json({'subject': {'address': address, 'chains': chains},
                'score': {'value': score, 'grade': grade, 'scored_at': NULL::VARCHAR, 'status': NULL::VARCHAR, 'version': run.model_version},
                'verification_level': 'none',
                'chains': paid_chains,
                'operator_score': CASE WHEN operator_score IS NOT NULL
                                       THEN {'score': operator_score, 'grade': operator_grade, 'agent_count': agent_count, 'chains_active': chains_active} END,
                'reputation': reputation,
                'agents': agents,
                'data_semantics': 'candidate_payment_activity_with_verified_subset',
                'caveats': caveats,
                'updated_at': NULL::VARCHAR})::VARCHAR AS record_paid,
       to_json({'best_chain': chains[1], 'views': (SELECT views FROM view_facts)})::VARCHAR AS view_facts
  FROM base, run;

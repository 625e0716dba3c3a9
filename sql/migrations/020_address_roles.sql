-- Each address's roles and activity over all its chains, kept beside its top-level score so a
-- run's stats (sql/score/stats.sql) and the legacy browse (sql/serve/legacy_browse.sql) are one
-- pass over address_scores instead of grouping a million chain_scores rows by address: the entity
-- type on its best chain (highest score, then chain name), payment counts, volume and
-- counterparties summed over chains, the most active months of any chain, the first and last
-- candidate payment, and whether it is a registered agent on any chain.
-- Existing rows are filled from chain_scores, as sql/score/address_scores.sql fills new ones.
ALTER TABLE address_scores ADD COLUMN entity_type VARCHAR;
ALTER TABLE address_scores ADD COLUMN candidate_as_payer INTEGER;
ALTER TABLE address_scores ADD COLUMN candidate_as_payee INTEGER;
ALTER TABLE address_scores ADD COLUMN verified_as_payer INTEGER;
ALTER TABLE address_scores ADD COLUMN verified_as_payee INTEGER;
ALTER TABLE address_scores ADD COLUMN is_known_erc8004_agent BOOLEAN;
ALTER TABLE address_scores ADD COLUMN volume_usdc DOUBLE;
ALTER TABLE address_scores ADD COLUMN counterparties_count INTEGER;
ALTER TABLE address_scores ADD COLUMN active_months INTEGER;
ALTER TABLE address_scores ADD COLUMN first_candidate_tx_at TIMESTAMP;
ALTER TABLE address_scores ADD COLUMN last_candidate_tx_at TIMESTAMP;

UPDATE address_scores s
   SET entity_type = r.entity_type, candidate_as_payer = r.candidate_as_payer, candidate_as_payee = r.candidate_as_payee,
       verified_as_payer = r.verified_as_payer, verified_as_payee = r.verified_as_payee,
       is_known_erc8004_agent = r.is_known_erc8004_agent, volume_usdc = r.volume_usdc,
       counterparties_count = r.counterparties_count, active_months = r.active_months,
       first_candidate_tx_at = r.first_candidate_tx_at, last_candidate_tx_at = r.last_candidate_tx_at
  FROM (SELECT address, arg_min(entity_type, {'score': -score, 'chain': chain}) AS entity_type,
               sum(candidate_as_payer)::INTEGER AS candidate_as_payer, sum(candidate_as_payee)::INTEGER AS candidate_as_payee,
               sum(verified_as_payer)::INTEGER AS verified_as_payer, sum(verified_as_payee)::INTEGER AS verified_as_payee,
               bool_or(is_known_erc8004_agent) AS is_known_erc8004_agent, sum(volume_usdc) AS volume_usdc,
               sum(counterparties_count)::INTEGER AS counterparties_count, max(active_months) AS active_months,
               min(first_candidate_tx_at) AS first_candidate_tx_at, max(last_candidate_tx_at) AS last_candidate_tx_at
          FROM chain_scores GROUP BY address) r
 WHERE r.address = s.address;

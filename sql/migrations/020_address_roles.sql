-- Each address's roles over all its chains, kept beside its top-level score so a run's stats are
-- one pass over address_scores instead of grouping a million chain_scores rows by address
-- (sql/score/stats.sql): the entity type on its best chain (highest score, then chain name),
-- payment counts summed over chains, and whether it is a registered agent on any chain.
-- Existing rows are filled from chain_scores, as sql/score/address_scores.sql fills new ones.
ALTER TABLE address_scores ADD COLUMN entity_type VARCHAR;
ALTER TABLE address_scores ADD COLUMN candidate_as_payer INTEGER;
ALTER TABLE address_scores ADD COLUMN candidate_as_payee INTEGER;
ALTER TABLE address_scores ADD COLUMN verified_as_payer INTEGER;
ALTER TABLE address_scores ADD COLUMN verified_as_payee INTEGER;
ALTER TABLE address_scores ADD COLUMN is_known_erc8004_agent BOOLEAN;

UPDATE address_scores s
   SET entity_type = r.entity_type, candidate_as_payer = r.candidate_as_payer, candidate_as_payee = r.candidate_as_payee,
       verified_as_payer = r.verified_as_payer, verified_as_payee = r.verified_as_payee,
       is_known_erc8004_agent = r.is_known_erc8004_agent
  FROM (SELECT address, arg_min(entity_type, {'score': -score, 'chain': chain}) AS entity_type,
               sum(candidate_as_payer)::INTEGER AS candidate_as_payer, sum(candidate_as_payee)::INTEGER AS candidate_as_payee,
               sum(verified_as_payer)::INTEGER AS verified_as_payer, sum(verified_as_payee)::INTEGER AS verified_as_payee,
               bool_or(is_known_erc8004_agent) AS is_known_erc8004_agent
          FROM chain_scores GROUP BY address) r
 WHERE r.address = s.address;

-- A lookup (sql/serve/address_record.sql) finds the agents an address owns or is paid for: with an
-- index on each column these are two point lookups instead of a scan of every agent's row with an
-- OR (at 20k agents the lookup took 24 ms with the scan, 15 ms without; docs/performance.md, "api").
CREATE INDEX agent_scores_owner ON agent_scores (owner);
CREATE INDEX agent_scores_agent_wallet ON agent_scores (agent_wallet);

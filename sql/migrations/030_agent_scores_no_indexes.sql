-- The ART indexes of migration 014 (restated by 024) go. Every scoring run deletes and re-inserts
-- the rows of the agents in its scope, and DuckDB updates both indexes for each at commit: 12 ms of
-- an incremental run at 1M addresses (2,000 agents rewritten). A lookup (sql/serve/address_record.sql)
-- now finds the agents an address owns or is paid for in one scan of agent_scores, as fast as the two
-- index lookups were at 20k agents (8.2-8.7 ms per lookup either way; docs/performance.md, "api").
DROP INDEX agent_scores_owner;
DROP INDEX agent_scores_agent_wallet;

-- A full run recomputes everything: every agent, and every address that paid or was paid, owns or
-- is paid for an agent, or was asked about (known_addresses).
CREATE OR REPLACE TEMP TABLE scope_agents AS SELECT chain, agent_id FROM registered_agents;

-- Left empty: filters on the scope are twins on is_full (pipeline/score/run.ts) whose full side
-- reads every row instead; the list of every address cost a pass over every pair.
CREATE OR REPLACE TEMP TABLE scope_addresses (address VARCHAR);

-- Left empty: a full run reads the facts of every address without filtering on it, and the
-- filter's join would still be built over every address (sql/score/facts.sql).
CREATE OR REPLACE TEMP TABLE fact_addresses (address VARCHAR);

-- Left empty: a full run computes every client's weight (sql/score/weights.sql).
CREATE OR REPLACE TEMP TABLE weight_clients (chain VARCHAR, agent_id HUGEINT, client_address VARCHAR);

-- Everything is rescored: nothing is left pending from on-demand runs (sql/score/changed.sql).
DELETE FROM pending_addresses;

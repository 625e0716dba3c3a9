-- What this run recomputes. A full run: every agent and every address. An incremental run: the
-- changes (sql/score/changed.sql) and everything whose result depends on them:
--   agents   = changed agents, agents paid at a changed address, agents rated by a changed client,
--              then every agent sharing a payment address or an owner with those addresses;
--   addresses = changed addresses, and the payment addresses and owners (now and in the previous
--              run) of those agents;
--   facts    = payment facts for those addresses, the agents' payment addresses and their clients.
CREATE OR REPLACE TEMP TABLE scope_agents AS
WITH first_agents AS (
  SELECT chain, agent_id FROM changed_agents
  UNION SELECT chain, agent_id FROM registered_agents WHERE pay_to IN (SELECT address FROM changed_addresses)
  UNION SELECT f.chain, f.agent_id FROM feedback f WHERE f.client_address IN (SELECT address FROM changed_addresses)
  UNION SELECT f.chain, f.agent_id FROM imported_feedback f WHERE f.client_address IN (SELECT address FROM changed_addresses)
),
linked_addresses AS (
  SELECT address FROM changed_addresses
  UNION SELECT a.pay_to FROM registered_agents a JOIN first_agents USING (chain, agent_id)
  UNION SELECT a.owner  FROM registered_agents a JOIN first_agents USING (chain, agent_id)
  UNION SELECT coalesce(s.agent_wallet, s.owner) FROM agent_scores s JOIN first_agents USING (chain, agent_id)
  UNION SELECT s.owner  FROM agent_scores s JOIN first_agents USING (chain, agent_id)
)
SELECT chain, agent_id FROM first_agents
UNION SELECT chain, agent_id FROM registered_agents
 WHERE pay_to IN (SELECT address FROM linked_addresses) OR owner IN (SELECT address FROM linked_addresses);

CREATE OR REPLACE TEMP TABLE scope_addresses AS
SELECT address FROM changed_addresses
UNION SELECT a.pay_to FROM registered_agents a JOIN scope_agents USING (chain, agent_id)
UNION SELECT a.owner  FROM registered_agents a JOIN scope_agents USING (chain, agent_id)
UNION SELECT coalesce(s.agent_wallet, s.owner) FROM agent_scores s JOIN scope_agents USING (chain, agent_id)
UNION SELECT s.owner  FROM agent_scores s JOIN scope_agents USING (chain, agent_id);

CREATE OR REPLACE TEMP TABLE fact_addresses AS
SELECT address FROM scope_addresses
UNION SELECT f.client_address FROM feedback f JOIN scope_agents USING (chain, agent_id)
UNION SELECT f.client_address FROM imported_feedback f JOIN scope_agents USING (chain, agent_id);

-- What this run recomputes. A full run: every agent and every address. An incremental run: the
-- changes (sql/score/changed.sql) and everything whose result depends on them:
--   agents   = changed agents, agents paid at a changed address, agents rated by a changed client,
--              and every agent paid at a changed agent's payment address (now or in the previous
--              run): an agent's row depends on other agents only through the count of the agents
--              paid at its payment address (agents_sharing_owner);
--   addresses = changed addresses, and the payment addresses and owners (now and in the previous
--              run) of those agents (an owner's operator score reads every agent it owns);
--   weights  = the clients of those agents whose weight can have changed;
--   facts    = payment facts for those addresses and clients.

-- The ratings of a changed agent or by a changed client (or one whose payments changed: an
-- on-demand run brings payments up to date for addresses it does not rescore, paid_addresses),
-- read once for the scope and the weights below.
CREATE OR REPLACE TEMP TABLE touched_ratings AS
WITH ratings AS (
  SELECT chain, agent_id, client_address FROM feedback
  UNION ALL SELECT chain, agent_id, client_address FROM imported_feedback
)
SELECT DISTINCT * FROM ratings    -- distinct after the filter, not over every entry
 WHERE (chain, agent_id) IN (SELECT (chain, agent_id) FROM changed_agents)
    OR client_address IN (SELECT address FROM changed_addresses UNION SELECT address FROM paid_addresses);

-- Other agents of the same owner, or at the payment address of an agent rated by a changed client,
-- keep their rows: the chain and address rows that show them are rescored (scope_addresses below)
-- and read them as they are.
CREATE OR REPLACE TEMP TABLE scope_agents AS
WITH changed_pay_to AS (  -- the agents paid there count them again (agents_sharing_owner)
  SELECT a.chain, a.pay_to FROM registered_agents a SEMI JOIN changed_agents c ON c.chain = a.chain AND c.agent_id = a.agent_id
  UNION SELECT s.chain, coalesce(s.agent_wallet, s.owner) FROM agent_scores s SEMI JOIN changed_agents c ON c.chain = s.chain AND c.agent_id = s.agent_id
)
SELECT chain, agent_id FROM changed_agents
UNION SELECT chain, agent_id FROM registered_agents WHERE pay_to IN (SELECT address FROM changed_addresses)
UNION SELECT chain, agent_id FROM touched_ratings WHERE client_address IN (SELECT address FROM changed_addresses)
UNION SELECT a.chain, a.agent_id FROM registered_agents a SEMI JOIN changed_pay_to p ON p.chain = a.chain AND p.pay_to = a.pay_to;

CREATE OR REPLACE TEMP TABLE scope_addresses AS
SELECT address FROM changed_addresses
UNION SELECT a.pay_to FROM registered_agents a JOIN scope_agents USING (chain, agent_id)
UNION SELECT a.owner  FROM registered_agents a JOIN scope_agents USING (chain, agent_id)
UNION SELECT coalesce(s.agent_wallet, s.owner) FROM agent_scores s JOIN scope_agents USING (chain, agent_id)
UNION SELECT s.owner  FROM agent_scores s JOIN scope_agents USING (chain, agent_id);

-- The clients whose weight for an agent in scope can have changed (sql/score/weights.sql): every
-- client of a changed agent (its ratings, owner or payment address), and the clients whose
-- payments changed (their payments to the agent and their verified counterparties). The other
-- weights are the same as the run that last computed them.
CREATE OR REPLACE TEMP TABLE weight_clients AS
SELECT r.* FROM touched_ratings r SEMI JOIN scope_agents s ON s.chain = r.chain AND s.agent_id = r.agent_id;

CREATE OR REPLACE TEMP TABLE fact_addresses AS
SELECT address FROM scope_addresses
UNION SELECT client_address FROM weight_clients;

-- Whether an address without a record is known to the index: asked about before (known_addresses)
-- or a registered agent's owner or wallet not scored yet. Payment addresses new since the last
-- run are not looked up here (that would scan the payments on every miss); the next run scores
-- them. $1 is the address.
SELECT EXISTS (SELECT 1 FROM known_addresses WHERE address = $1)
    OR EXISTS (SELECT 1 FROM agent_registrations WHERE owner = $1)
    OR EXISTS (SELECT 1 FROM agent_transfers WHERE to_address = $1)
    OR EXISTS (SELECT 1 FROM imported_agents WHERE owner = $1) AS indexed;

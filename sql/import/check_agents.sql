-- Checks a file of ERC-8004 agents. Reads import_source (line, malformed, and one text column per
-- expected column) and writes import_checked: each row's line, its typed values, and its first
-- problem (bad_column, reason), NULL for rows that load. Problems are looked for in column order;
-- a row whose natural key (chain, registry, agent_id) already appeared on an earlier good line is
-- a duplicate of that line.
CREATE OR REPLACE TEMP TABLE import_checked AS
WITH typed AS (
  SELECT *,
         import_chain(chain)                                 AS v_chain,
         import_address(family, registry)                    AS v_registry,
         TRY_CAST(import_digits(agent_id) AS HUGEINT)        AS v_agent_id,
         import_address(family, owner)                       AS v_owner,
         nullif(agent_uri, '')                               AS v_agent_uri,
         TRY_CAST(import_digits(registered_block) AS BIGINT) AS v_registered_block,
         import_tx_hash(family, tx_hash)                     AS v_tx_hash,
         -- CASE evaluates json_type only where the text parsed: it raises on invalid JSON.
         CASE WHEN json_valid(registration) THEN
           CASE WHEN json_type(registration) = 'OBJECT' THEN registration::JSON END
         END                                                 AS v_registration
    FROM (SELECT *, import_family(import_chain(chain)) AS family FROM import_source)
),
-- Materialised: both the duplicate search and the result read it, and the checks are the costly part.
judged AS MATERIALIZED (
  SELECT *,
         coalesce(
           CASE WHEN malformed IS NOT NULL THEN {'bad_column': NULL::VARCHAR, 'reason': malformed} END,
           import_required('chain', chain, v_chain, 'a chain name (letters, digits, - and _)'),
           import_required('registry', registry, v_registry, import_address_form(family)),
           import_required('agent_id', agent_id, v_agent_id, 'a non-negative integer below 2^127 (HUGEINT)'),
           import_required('owner', owner, v_owner, import_address_form(family)),
           import_optional('registered_block', registered_block, v_registered_block, 'a non-negative integer below 2^63 (BIGINT)'),
           import_optional('tx_hash', tx_hash, v_tx_hash, import_tx_hash_form(family)),
           import_optional('registration', registration, v_registration, 'a JSON object')
         ) AS problem
    FROM typed
),
-- Keys on more than one good line: the later lines are duplicates of the first.
duplicates AS (
  SELECT v_chain, v_registry, v_agent_id, min(line) AS first_line
    FROM judged WHERE problem IS NULL
   GROUP BY ALL HAVING count(*) > 1
)
SELECT line,
       coalesce(problem, CASE WHEN line > first_line THEN {
         'bad_column': NULL::VARCHAR,
         'reason': 'duplicate of line ' || first_line || ' (same chain, registry, agent_id)'
       } END) AS problem,
       v_chain AS chain, v_registry AS registry, v_agent_id AS agent_id, v_owner AS owner,
       v_agent_uri AS agent_uri, v_registered_block AS registered_block, v_tx_hash AS tx_hash,
       v_registration AS registration
  FROM judged LEFT JOIN duplicates USING (v_chain, v_registry, v_agent_id);

-- Checks a file of ERC-8004 feedback. Reads import_source (line, malformed, and one text column per
-- expected column) and writes import_checked: each row's line, its typed values, and its first
-- problem (bad_column, reason), NULL for rows that load. Problems are looked for in column order;
-- a row whose natural key (chain, registry, agent_id, client_address, feedback_index) already
-- appeared on an earlier good line is a duplicate of that line. Tags are free text, kept verbatim;
-- an empty tag is ''. value is the contract's int128 and may be negative.
CREATE OR REPLACE TEMP TABLE import_checked AS
WITH typed AS (
  SELECT *,
         import_chain(chain)                                     AS v_chain,
         import_address(family, registry)                        AS v_registry,
         TRY_CAST(import_digits(agent_id) AS HUGEINT)            AS v_agent_id,
         import_address(family, client_address)                  AS v_client_address,
         TRY_CAST(import_digits(feedback_index) AS BIGINT)       AS v_feedback_index,
         TRY_CAST(import_signed_digits(value) AS HUGEINT)        AS v_value,
         CASE WHEN TRY_CAST(import_digits(value_decimals) AS INTEGER) BETWEEN 0 AND 18
              THEN TRY_CAST(import_digits(value_decimals) AS INTEGER) END AS v_value_decimals,
         coalesce(tag1, '')                                      AS v_tag1,
         coalesce(tag2, '')                                      AS v_tag2,
         import_timestamp(given_at)                              AS v_given_at,
         import_boolean(revoked)                                 AS v_revoked
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
           import_required('client_address', client_address, v_client_address, import_address_form(family)),
           import_required('feedback_index', feedback_index, v_feedback_index, 'a non-negative integer below 2^63 (BIGINT)'),
           import_required('value', value, v_value, 'an integer (int128)'),
           import_required('value_decimals', value_decimals, v_value_decimals, 'an integer from 0 to 18'),
           import_optional('given_at', given_at, v_given_at, 'an ISO-8601 time or epoch seconds'),
           import_required('revoked', revoked, v_revoked, 'a boolean (true, false, 1, 0)')
         ) AS problem
    FROM typed
),
-- Keys on more than one good line: the later lines are duplicates of the first.
duplicates AS (
  SELECT v_chain, v_registry, v_agent_id, v_client_address, v_feedback_index, min(line) AS first_line
    FROM judged WHERE problem IS NULL
   GROUP BY ALL HAVING count(*) > 1
)
SELECT line,
       coalesce(problem, CASE WHEN line > first_line THEN {
         'bad_column': NULL::VARCHAR,
         'reason': 'duplicate of line ' || first_line || ' (same chain, registry, agent_id, client_address, feedback_index)'
       } END) AS problem,
       v_chain AS chain, v_registry AS registry, v_agent_id AS agent_id, v_client_address AS client_address,
       v_feedback_index AS feedback_index, v_value AS value, v_value_decimals AS value_decimals,
       v_tag1 AS tag1, v_tag2 AS tag2, v_given_at AS given_at, v_revoked AS revoked
  FROM judged LEFT JOIN duplicates USING (v_chain, v_registry, v_agent_id, v_client_address, v_feedback_index);

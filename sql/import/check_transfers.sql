-- Checks a file of token transfers. Reads import_source (line, malformed, and one text column per
-- expected column) and writes import_checked: each row's line, its typed values, and its first
-- problem (bad_column, reason), NULL for rows that load. Problems are looked for in column order;
-- a row whose natural key (chain, tx_hash, log_index) already appeared on an earlier good line is
-- a duplicate of that line, so a file never loads two versions of one transfer.
CREATE OR REPLACE TEMP TABLE import_checked AS
WITH typed AS (
  SELECT *,
         import_chain(chain)                             AS v_chain,
         TRY_CAST(import_digits(block_number) AS BIGINT) AS v_block_number,
         import_timestamp(block_time)                    AS v_block_time,
         import_tx_hash(family, tx_hash)                 AS v_tx_hash,
         TRY_CAST(import_digits(log_index) AS INTEGER)   AS v_log_index,
         import_address(family, token)                   AS v_token,
         import_address(family, from_address)            AS v_from_address,
         import_address(family, to_address)              AS v_to_address,
         TRY_CAST(import_digits(value) AS HUGEINT)       AS v_value,
         import_address(family, tx_sender)               AS v_tx_sender,
         import_boolean(authorized)                      AS v_authorized
    FROM (SELECT *, import_family(import_chain(chain)) AS family FROM import_source)
),
-- Materialised: both the duplicate search and the result read it, and the checks are the costly part.
judged AS MATERIALIZED (
  SELECT *,
         coalesce(
           CASE WHEN malformed IS NOT NULL THEN {'bad_column': NULL::VARCHAR, 'reason': malformed} END,
           import_required('chain', chain, v_chain, 'a chain name (letters, digits, - and _)'),
           import_required('block_number', block_number, v_block_number, 'a non-negative integer below 2^63 (BIGINT)'),
           import_required('block_time', block_time, v_block_time, 'an ISO-8601 time or epoch seconds'),
           import_required('tx_hash', tx_hash, v_tx_hash, import_tx_hash_form(family)),
           import_required('log_index', log_index, v_log_index, 'a non-negative integer below 2^31 (INTEGER)'),
           import_required('token', token, v_token, import_address_form(family)),
           import_required('from_address', from_address, v_from_address, import_address_form(family)),
           import_required('to_address', to_address, v_to_address, import_address_form(family)),
           import_required('value', value, v_value, 'a non-negative integer of base units below 2^127 (HUGEINT)'),
           import_required('tx_sender', tx_sender, v_tx_sender, import_address_form(family)),
           import_required('authorized', authorized, v_authorized, 'a boolean (true, false, 1, 0)')
         ) AS problem
    FROM typed
),
-- Keys on more than one good line: the later lines are duplicates of the first.
duplicates AS (
  SELECT v_chain, v_tx_hash, v_log_index, min(line) AS first_line
    FROM judged WHERE problem IS NULL
   GROUP BY ALL HAVING count(*) > 1
)
SELECT line,
       coalesce(problem, CASE WHEN line > first_line THEN {
         'bad_column': NULL::VARCHAR,
         'reason': 'duplicate of line ' || first_line || ' (same chain, tx_hash, log_index)'
       } END) AS problem,
       v_chain AS chain, v_block_number AS block_number, v_block_time AS block_time, v_tx_hash AS tx_hash,
       v_log_index AS log_index, v_token AS token, v_from_address AS from_address,
       v_to_address AS to_address, v_value AS value, v_tx_sender AS tx_sender, v_authorized AS authorized
  FROM judged LEFT JOIN duplicates USING (v_chain, v_tx_hash, v_log_index);

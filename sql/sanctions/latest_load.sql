-- The newest load of the sanctions list. Its content hash tells a refresh whether anything
-- changed; its time (microseconds since the epoch) versions the lookup's in-memory index.
SELECT epoch_us(loaded_at) AS version,
       strftime(loaded_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS loaded_at,
       source_sha256
  FROM sanctions_list_loads
 ORDER BY loaded_at DESC
 LIMIT 1;

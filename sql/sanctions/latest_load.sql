-- The newest load of the sanctions list. Its content hash tells a refresh whether anything
-- changed; its time (microseconds since the epoch) versions the lookup's in-memory index; the
-- newest successful refresh (changed or not) says how current the list is.
SELECT epoch_us(l.loaded_at) AS version,
       strftime(l.loaded_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS loaded_at,
       strftime(greatest(l.loaded_at, coalesce((SELECT max(checked_at) FROM sanctions_list_checks), l.loaded_at)), '%Y-%m-%dT%H:%M:%S.%gZ') AS checked_at,
       l.source_sha256
  FROM sanctions_list_loads l
 ORDER BY l.loaded_at DESC
 LIMIT 1;

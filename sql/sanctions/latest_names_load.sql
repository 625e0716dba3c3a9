-- The newest load of the SDN names. Its content hash tells a refresh whether anything changed
-- (and birth_count whether that load read the dates of birth); its time (microseconds since the
-- epoch) versions the name screening's in-memory index.
SELECT epoch_us(loaded_at) AS version,
       source_sha256,
       birth_count
  FROM sanctioned_name_loads
 ORDER BY loaded_at DESC
 LIMIT 1;

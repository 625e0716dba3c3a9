-- The cursor of one source: the highest block recorded for it. $1 chain, $2 source.
SELECT block_number::VARCHAR AS block, block_hash
  FROM ingest_cursors
 WHERE chain = $1 AND source = $2
 ORDER BY block_number DESC
 LIMIT 1

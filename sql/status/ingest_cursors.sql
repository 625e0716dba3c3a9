-- `reputation status`: how far each chain and source is ingested (its newest cursor; cursors are
-- appended, pipeline/ingest/ingest-source.ts), and when that was recorded.
SELECT chain, source, block_number, strftime(recorded_at, '%Y-%m-%dT%H:%M:%SZ') AS recorded_at
  FROM ingest_cursors
QUALIFY row_number() OVER (PARTITION BY chain, source ORDER BY block_number DESC, recorded_at DESC) = 1
 ORDER BY chain, source;

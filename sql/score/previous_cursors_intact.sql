-- Whether the block a previous run read up to, per chain and source, is still the one stored
-- under the same hash, written before that run. A reorg rollback deletes cursor rows above the
-- common ancestor; when it went below what the previous run read, rows that run saw are gone and
-- only a full run gives the right answer. $1 is the previous run's scored_at.
SELECT count(*) FILTER (NOT EXISTS (
         SELECT 1 FROM ingest_cursors c
          WHERE c.chain = p.chain AND c.source = p.source AND c.block_number = p.block_number
            AND c.block_hash = p.block_hash AND c.recorded_at <= $1::TIMESTAMP))::INTEGER AS broken
  FROM previous_cursors p
 WHERE p.block_number >= 0;

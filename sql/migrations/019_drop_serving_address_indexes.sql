-- Drops the two million-row indexes of migration 015. Measured at 1M addresses
-- (docs/performance.md, "score"): they made every full scoring run 12 s slower (7.4 s → 19.9 s:
-- a million index deletes and inserts, and a checkpoint that rewrites each index whole) and every
-- incremental run about 1.7 s slower, to save about 5 ms of an uncached lookup (18.7 ms → 13.8 ms),
-- which the record cache spares repeated lookups anyway. Their rows are written in address order,
-- so a lookup reads one row group of each. The small indexes (agent_scores, address_feedback) stay.
DROP INDEX chain_scores_address;
DROP INDEX address_scores_address;

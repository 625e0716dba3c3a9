-- A lookup (sql/serve/address_record.sql) reads one address's rows of address_scores, chain_scores
-- and address_feedback: an ART index on each makes those point lookups instead of scans of a
-- million rows (docs/performance.md, "api"). Not unique: a scoring run deletes and re-inserts the
-- rows of the addresses in its scope in one transaction.
CREATE INDEX address_scores_address ON address_scores (address);
CREATE INDEX chain_scores_address ON chain_scores (address);
CREATE INDEX address_feedback_address ON address_feedback (address);

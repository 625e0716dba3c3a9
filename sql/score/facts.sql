-- The activity facts this run reads (payment_facts, kept by sql/score/payment_facts.sql), as the
-- table macro run_facts(): every address's in a full run, read in place (a copy of a million rows
-- cost 0.2 s); otherwise what sql/score/payment_facts.sql read and wrote: the new facts of the
-- paid addresses and the stored facts of the other addresses and clients of fact_addresses. Its
-- readers join it on their own addresses; a macro, as a temporary table of those rows cost more
-- than the three readers' scans of them.
CREATE OR REPLACE TEMP MACRO run_facts() AS TABLE
  SELECT * FROM payment_facts WHERE getvariable('is_full')
  UNION ALL SELECT * FROM new_facts WHERE NOT getvariable('is_full')
  UNION ALL SELECT * EXCLUDE (row_id) FROM stored_facts
             WHERE NOT getvariable('is_full') AND address NOT IN (SELECT address FROM paid_addresses);

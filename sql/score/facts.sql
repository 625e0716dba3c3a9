-- The activity facts this run reads (payment_facts, kept by sql/score/payment_facts.sql), as the
-- table macro run_facts(): every address's in a full run, read in place (a copy of a million rows
-- cost 0.2 s); those of fact_addresses otherwise, copied into scoped_facts from what
-- sql/score/payment_facts.sql read and wrote (the paid addresses' new facts, the others' stored).
CREATE OR REPLACE TEMP TABLE scoped_facts AS
SELECT * FROM new_facts WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM fact_addresses)
UNION ALL
SELECT * EXCLUDE (row_id) FROM stored_facts
 WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM fact_addresses)
   AND address NOT IN (SELECT address FROM paid_addresses);

CREATE OR REPLACE TEMP MACRO run_facts() AS TABLE
  SELECT * FROM payment_facts WHERE getvariable('is_full')
  UNION ALL SELECT * FROM scoped_facts WHERE NOT getvariable('is_full');

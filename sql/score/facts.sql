-- The activity facts this run reads (payment_facts, kept by sql/score/payment_facts.sql): every
-- address's in a full run, those of fact_addresses otherwise.
CREATE OR REPLACE TEMP TABLE run_facts AS
SELECT * FROM payment_facts WHERE getvariable('is_full')
UNION ALL SELECT * FROM payment_facts WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM fact_addresses);

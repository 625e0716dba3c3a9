-- Whether an address has scores, i.e. a served record (serve/address_record.sql has a row exactly
-- then), without building the record. $1 is the address.
SELECT EXISTS (SELECT 1 FROM address_scores WHERE address = $1) AS scored;

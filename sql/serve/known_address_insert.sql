-- An address asked about (by assess, or `score --address`) enters the index: the next scoring run
-- scores it. $3 says who asked.
INSERT INTO known_addresses SELECT $1, $2, $3, utc_now() WHERE NOT EXISTS (SELECT 1 FROM known_addresses WHERE address = $1);

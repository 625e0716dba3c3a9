-- Every listed address, for the lookup's in-memory index. Several rows for one listing key are
-- several labels or entries of it, or its other spelling (pipeline/sanctions/address-family.ts);
-- the first one is what a hit reports: the earliest designation, undated listings last, then the
-- lowest entry id (as a number; a listing that names no entry last) and label for a stable answer.
-- Ordered by these alone, not by address first: two spellings of one address sort apart.
SELECT family, address, ofac_label, sdn_uid, strftime(listed_at, '%Y-%m-%d') AS listed_at
  FROM sanctioned_addresses
 ORDER BY listed_at NULLS LAST, TRY_CAST(sdn_uid AS BIGINT) NULLS LAST, sdn_uid, ofac_label, family, address;

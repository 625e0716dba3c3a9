-- Every listed address, for the lookup's in-memory index. Several rows for one (family, address)
-- are several labels or entries of it; the first one is what a hit reports: the earliest
-- designation, undated listings last, then the lowest entry id (as a number; a listing that names
-- no entry last) and label for a stable answer.
SELECT family, address, ofac_label, sdn_uid, strftime(listed_at, '%Y-%m-%d') AS listed_at
  FROM sanctioned_addresses
 ORDER BY family, address, listed_at NULLS LAST, TRY_CAST(sdn_uid AS BIGINT) NULLS LAST, sdn_uid, ofac_label;

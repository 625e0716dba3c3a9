-- What the year of birth said of a name screening's hit, for the person who reviews it
-- (identity/screening.ts): in_listed_years (the document's year is in the entry's listed dates),
-- not_given (the vendor gave no year), entry_undated (the entry lists no date that could be read).
-- NULL when the screening was clear or unavailable, and for hits recorded before it was kept.
ALTER TABLE operators ADD COLUMN sanctions_birth_check VARCHAR;

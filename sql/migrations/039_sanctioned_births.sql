-- The dates of birth the SDN entries list, as years (pipeline/sanctions/birth-years.ts): name
-- screening sets aside a match on an entry none of whose dates is in the person's year of birth.
-- An entry with no row lists no date that could be read, and no match on it is set aside.
CREATE TABLE sanctioned_births (
  sdn_uid   VARCHAR NOT NULL,   -- SDN entry id (ent_num)
  born_from INTEGER NOT NULL,   -- first year the date allows ("DOB circa 1973": 1971)
  born_to   INTEGER NOT NULL    -- last year it allows ("DOB circa 1973": 1975)
);

-- Dates of birth written by the load; NULL for loads made before they were read, so the next
-- refresh loads the same source again to read them.
ALTER TABLE sanctioned_name_loads ADD COLUMN birth_count INTEGER;

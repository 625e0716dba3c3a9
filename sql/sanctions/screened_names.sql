-- The names name screening compares a verified person's name with (identity/screening.ts).
-- Operators are individual humans: entities, vessels and aircraft are left out (many are named
-- after people, e.g. the vessel ALEKSANDR SOKOLOV, and would only add false matches; see
-- docs/screening.md). An entry whose type the source did not give is kept: it may be a person.
-- Ordered so that among equal scores the answer is stable: primary names first, then by entry.
SELECT sdn_uid, name, name_type
  FROM sanctioned_names
 WHERE sdn_type IN ('individual', '')
 ORDER BY name_type <> 'primary', TRY_CAST(sdn_uid AS BIGINT) NULLS LAST, sdn_uid, name_type, name;

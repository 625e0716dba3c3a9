-- The names name screening compares a verified person's name with (identity/screening.ts), each
-- with its entry's dates of birth as [from, to] years (NULL when the entry lists none).
-- Operators are individual humans: entities, vessels and aircraft are left out (many are named
-- after people, e.g. the vessel ALEKSANDR SOKOLOV, and would only add false matches; see
-- docs/screening.md). An entry whose type the source did not give is kept: it may be a person.
-- Ordered so that among equal scores the answer is stable: primary names first, then by entry.
SELECT n.sdn_uid, n.name, n.name_type, b.births
  FROM sanctioned_names n
  LEFT JOIN (SELECT sdn_uid, list([born_from, born_to] ORDER BY born_from, born_to) AS births
               FROM sanctioned_births
              GROUP BY sdn_uid) b USING (sdn_uid)
 WHERE n.sdn_type IN ('individual', '')
 ORDER BY n.name_type <> 'primary', TRY_CAST(n.sdn_uid AS BIGINT) NULLS LAST, n.sdn_uid, n.name_type, n.name;

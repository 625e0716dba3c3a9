-- The lines of a CSV file (import_lines) that begin outside a quoted field, numbered as DuckDB's
-- CSV reader numbers lines in its rejects table (`logical_line`: a record spanning several lines
-- counts once, blank lines count). The non-blank ones are where records start.
--
-- A quoted field may contain line breaks, so whether a line begins inside a quote depends on the
-- lines before it. Only a line holding a quote can change that state. Each such line maps the
-- state at its start (inside or outside a quoted field) to the state at its end, and the map is
-- one of four: keep, flip, always outside, always inside. The state after line n is therefore the
-- constant of the last "always" line up to n, flipped once for every "flip" line since: window
-- functions, no line-by-line loop. A line begins in the state left by the last quoted line before it.
--
-- Fields follow RFC 4180 as DuckDB reads them: a quote opens a quoted field only at the start of a
-- field, "" inside one is a literal quote, and a quote inside an unquoted field is a plain character.
CREATE OR REPLACE TEMP TABLE import_csv_starts AS
WITH maps AS (
  SELECT n,
         -- Starting outside: complete fields, then a quoted field left open at the end of the line.
         regexp_full_match(text,
           '(?:(?:"(?:[^"]|"")*"(?:[^",][^,]*)?|[^,"][^,]*|),)*"(?:[^"]|"")*') AS ends_inside_from_outside,
         -- Starting inside: the quote never closes, or it closes and a later field opens another.
         regexp_full_match(text, '(?:[^"]|"")*')
           OR regexp_full_match(text,
                '(?:[^"]|"")*"(?:[^",][^,]*)?,(?:(?:"(?:[^"]|"")*"(?:[^",][^,]*)?|[^,"][^,]*|),)*"(?:[^"]|"")*')
                                                                            AS ends_inside_from_inside
    FROM import_lines
   WHERE contains(text, '"')
),
kinds AS (
  SELECT n,
         CASE WHEN ends_inside_from_outside = ends_inside_from_inside THEN ends_inside_from_outside END AS constant,
         sum((ends_inside_from_outside AND NOT ends_inside_from_inside)::INTEGER) OVER (ORDER BY n) AS flips_through
    FROM maps
),
quoted_ends AS (
  SELECT n,
         coalesce(last_value(constant IGNORE NULLS) OVER upto, false)
           <> ((flips_through - coalesce(last_value(CASE WHEN constant IS NOT NULL THEN flips_through END IGNORE NULLS) OVER upto, 0)) % 2 = 1)
           AS inside_after
    FROM kinds
  WINDOW upto AS (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT l.n, l.text IS NULL AS blank, row_number() OVER (ORDER BY l.n) AS logical_line
  FROM import_lines l
  ASOF LEFT JOIN quoted_ends q ON l.n > q.n
 WHERE NOT coalesce(q.inside_after, false);

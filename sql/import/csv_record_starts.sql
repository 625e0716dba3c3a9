-- The lines of a CSV file (import_lines) that begin outside a quoted field, numbered as DuckDB's
-- CSV reader numbers lines in its rejects table (`logical_line`: a record spanning several lines
-- counts once, blank lines count). The non-blank ones are where records start.
--
-- A quoted field may contain line breaks, so whether a line begins inside a quote depends on every
-- line before it. Each line maps the state at its start (inside or outside a quoted field) to the
-- state at its end, and that map is one of four: keep, flip, always outside, always inside. The
-- state after line n is therefore the constant of the last "always" line before it, flipped once
-- for every "flip" line since: window functions, no line-by-line loop.
--
-- Fields follow RFC 4180 as DuckDB reads them: a quote opens a quoted field only at the start of a
-- field, "" inside one is a literal quote, and a quote inside an unquoted field is a plain character.
CREATE OR REPLACE TEMP TABLE import_csv_starts AS
WITH maps AS (
  SELECT n, text,
         -- starting outside: complete fields, then a quoted field left open at the end of the line
         regexp_full_match(text,
           '(?:(?:"(?:[^"]|"")*"(?:[^",][^,]*)?|[^,"][^,]*|),)*"(?:[^"]|"")*') AS ends_inside_from_outside,
         -- starting inside: the quote never closes, or it closes and a later field opens another
         regexp_full_match(text, '(?:[^"]|"")*')
           OR regexp_full_match(text,
                '(?:[^"]|"")*"(?:[^",][^,]*)?,(?:(?:"(?:[^"]|"")*"(?:[^",][^,]*)?|[^,"][^,]*|),)*"(?:[^"]|"")*')
                                                                               AS ends_inside_from_inside
    FROM (SELECT n, coalesce(text, '') AS text FROM import_lines)
),
kinds AS (
  SELECT n, text,
         CASE WHEN ends_inside_from_outside = ends_inside_from_inside THEN ends_inside_from_outside END AS constant,
         sum((ends_inside_from_outside AND NOT ends_inside_from_inside)::INTEGER) OVER (ORDER BY n) AS flips_through
    FROM maps
),
ends AS (
  SELECT n, text,
         coalesce(last_value(constant IGNORE NULLS) OVER upto, false) AS last_constant,
         flips_through - coalesce(last_value(CASE WHEN constant IS NOT NULL THEN flips_through END IGNORE NULLS) OVER upto, 0)
                                                                        AS flips_since
    FROM kinds
  WINDOW upto AS (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
starts AS (
  SELECT n, text,
         lag(last_constant <> (flips_since % 2 = 1), 1, false) OVER (ORDER BY n) AS begins_inside
    FROM ends
)
SELECT n, text = '' AS blank, row_number() OVER (ORDER BY n) AS logical_line
  FROM starts
 WHERE NOT begins_inside;

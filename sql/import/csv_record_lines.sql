-- Puts each CSV record DuckDB read (import_csv_rows, numbered by `ord` in file order) or rejected
-- (import_csv_rejects) on its physical line, using the record starts of import_csv_starts.
-- Rejected records are found by DuckDB's line number; the records it read take the remaining
-- starts after the header, in order.
CREATE OR REPLACE TEMP TABLE import_csv_rejected AS
SELECT s.n AS line,
       'malformed CSV row (' || lower(first(r.error_type ORDER BY r.column_idx)) || '): '
         || first(r.error_message ORDER BY r.column_idx) AS malformed
  FROM import_csv_rejects r
  JOIN import_csv_starts s ON s.logical_line = r.line
 GROUP BY s.n;

CREATE OR REPLACE TEMP TABLE import_csv_record_lines AS
SELECT row_number() OVER (ORDER BY n) AS ord, n AS line
  FROM import_csv_starts
 WHERE NOT blank AND n > 1 AND n NOT IN (SELECT line FROM import_csv_rejected);

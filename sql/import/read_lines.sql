-- The physical lines of a text file ($1, optionally gzip-compressed), numbered from 1, for CSV and
-- JSONL imports: DuckDB's readers give rows but not the lines they came from. Read as a CSV with one
-- column, no quoting and a NUL delimiter, so every line is one row, blank lines included (as NULL),
-- line ends (\n or \r\n) removed. The scan keeps file order (preserve_insertion_order), and a
-- byte-order mark before the first line is dropped. Lines may reach 16 MB (DuckDB's default is
-- 2 MB), room for a registration file with a data: URI image in it.
CREATE OR REPLACE TEMP TABLE import_lines AS
SELECT n, CASE WHEN n = 1 THEN ltrim(text, chr(65279)) ELSE text END AS text
  FROM (SELECT row_number() OVER () AS n, text
          FROM read_csv($1, columns = {'text': 'VARCHAR'}, header = false, auto_detect = false,
                        delim = chr(0), quote = '', escape = '', max_line_size = 16777216));

-- The column names of a CSV file: the fields of line 1, unquoted ("a ""b""" → a "b").
SELECT list_transform(
         regexp_extract_all(text, '(?:^|,)("(?:[^"]|"")*"|[^,]*)', 1),
         field -> CASE WHEN starts_with(field, '"') THEN replace(field[2:-2], '""', '"') ELSE trim(field) END
       ) AS names
  FROM import_lines
 WHERE n = 1 AND text IS NOT NULL;

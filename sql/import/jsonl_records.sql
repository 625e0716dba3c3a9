-- The records of a JSONL file: its non-blank lines (import_lines), each with the reason it cannot
-- be read when it cannot. Blank lines are not records: files end with one, some pad with more.
CREATE OR REPLACE TEMP TABLE import_jsonl AS
SELECT n AS line, text,
       CASE
         WHEN NOT json_valid(text) THEN 'line is not valid JSON: ' || import_shown(text)
         -- a nested CASE: json_type raises on text that is not JSON
         ELSE CASE WHEN json_type(text) <> 'OBJECT' THEN 'line is JSON but not an object: ' || import_shown(text) END
       END AS malformed
  FROM import_lines
 WHERE trim(coalesce(text, '')) <> '';

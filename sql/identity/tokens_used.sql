-- The last uses noted in memory since the previous flush ($1 ids, $2 times, in step).
UPDATE operator_tokens t
   SET last_used_at = u.used_at
  FROM (SELECT unnest($1) AS id, unnest($2) AS used_at) u
 WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.used_at);

-- An operator token by the SHA-256 of its value (never by the value itself).
SELECT id, operator_id, account_id, source,
       strftime(expires_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS expires_at,
       strftime(revoked_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS revoked_at
  FROM operator_tokens
 WHERE token_hash = $1;

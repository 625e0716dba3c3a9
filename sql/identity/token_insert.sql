INSERT INTO operator_tokens
  (id, operator_id, account_id, source, session_id, token_hash, prefix, label, created_at, expires_at, revoked_at, last_used_at, family_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, $11);

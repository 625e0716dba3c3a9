INSERT INTO refresh_tokens
  (id, family_id, generation, operator_id, account_id, token_hash, created_at, family_expires_at, spent_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL);

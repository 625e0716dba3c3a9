-- Every refresh token, for the owner's in-memory index (identity/refresh.ts): by its SHA-256.
SELECT id, family_id, generation, operator_id, account_id, token_hash,
       strftime(family_expires_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS family_expires_at,
       strftime(spent_at,          '%Y-%m-%dT%H:%M:%S.%gZ') AS spent_at,
       strftime(revoked_at,        '%Y-%m-%dT%H:%M:%S.%gZ') AS revoked_at
  FROM refresh_tokens;

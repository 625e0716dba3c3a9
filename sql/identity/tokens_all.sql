-- Every operator token, for the owner's in-memory index (identity/tokens.ts): by the SHA-256 of its
-- value, never the value itself.
SELECT id, operator_id, account_id, source, session_id, family_id, token_hash, prefix, label,
       strftime(created_at,   '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at,
       strftime(expires_at,   '%Y-%m-%dT%H:%M:%S.%gZ') AS expires_at,
       strftime(revoked_at,   '%Y-%m-%dT%H:%M:%S.%gZ') AS revoked_at,
       strftime(last_used_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS last_used_at
  FROM operator_tokens;

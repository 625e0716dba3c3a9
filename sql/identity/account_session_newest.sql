-- An account holder's newest own verification session that is still open ($2: now): pending
-- before its expiry, or failed (the last result). An expired pending one says nothing.
SELECT status
  FROM verification_sessions
 WHERE account_id = $1 AND purpose = 'account' AND (status = 'failed' OR (status = 'pending' AND expires_at > $2))
 ORDER BY created_at DESC
 LIMIT 1;

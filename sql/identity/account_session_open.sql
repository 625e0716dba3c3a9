-- An account holder's own verification session that can still be completed at $2: pending, or
-- failed with an attempt left ($3 in all), before its expiry; the newest.
SELECT id
  FROM verification_sessions
 WHERE account_id = $1 AND purpose = 'account' AND expires_at > $2
   AND (status = 'pending' OR (status = 'failed' AND attempts < $3))
 ORDER BY created_at DESC
 LIMIT 1;

-- The open agent session of one identity at one merchant ($1 account, $2 subject) at $3: pending
-- and unexpired, the newest.
SELECT id
  FROM verification_sessions
 WHERE account_id = $1 AND subject = $2 AND purpose = 'agent' AND status = 'pending' AND expires_at > $3
 ORDER BY created_at DESC
 LIMIT 1;

-- Moves a session to its next state; the caller checked the current one in the same transaction.
UPDATE verification_sessions
   SET status = $2, failure_code = $3, operator_id = $4, completed_at = $5
 WHERE id = $1;
